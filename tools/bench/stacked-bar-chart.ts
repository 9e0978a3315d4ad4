/** A dependency-free stacked bar chart as an SVG string, in the style of @pipeline/load's lineChart. */
export interface StackedBarsOptions {
  readonly title: string;
  readonly yLabel: string;
  /** The segments of every bar, bottom up. */
  readonly parts: readonly { readonly name: string; readonly color: string }[];
  /** One bar per entry: a value per part, and a tick drawn across it (e.g. the e2e p50). */
  readonly bars: readonly {
    readonly label: string;
    readonly values: readonly number[];
    readonly mark?: number;
  }[];
  readonly markName?: string;
}

const escapeXml = (text: string): string => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** 1, 2, 5 × 10^n steps, about five of them up to `max`. */
export function tickStep(max: number): number {
  const raw = Math.max(max, 1e-9) / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
}

export function stackedBarChart(options: StackedBarsOptions): string {
  const [width, height] = [Math.max(860, 120 + options.bars.length * 90), 300];
  const m = { left: 64, right: 16, top: 32, bottom: 44 };
  const tops = options.bars.map((b) =>
    Math.max(
      b.values.reduce((a, v) => a + Math.max(0, v), 0),
      b.mark ?? 0,
    ),
  );
  const step = tickStep(Math.max(1, ...tops));
  const yMax = Math.ceil(Math.max(1, ...tops) / step) * step;
  const py = (y: number): number => height - m.bottom - (y / yMax) * (height - m.top - m.bottom);
  const slot = (width - m.left - m.right) / Math.max(1, options.bars.length);
  const barWidth = Math.min(slot * 0.6, 80);
  const grid = Array.from({ length: Math.round(yMax / step) + 1 }, (_, i) => i * step).map(
    (y) =>
      `<line x1="${m.left}" x2="${width - m.right}" y1="${py(y).toFixed(1)}" y2="${py(y).toFixed(1)}" stroke="#ddd"/>` +
      `<text x="${m.left - 6}" y="${(py(y) + 4).toFixed(1)}" text-anchor="end">${Number(y.toPrecision(12))}</text>`,
  );
  const bars = options.bars.flatMap((bar, i) => {
    const x = m.left + i * slot + (slot - barWidth) / 2;
    let base = 0;
    const segments = bar.values.map((value, j) => {
      const v = Math.max(0, value);
      const rect = `<rect data-part="${escapeXml(options.parts[j]?.name ?? '')}" x="${x.toFixed(1)}" y="${py(base + v).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(py(base) - py(base + v)).toFixed(1)}" fill="${options.parts[j]?.color ?? '#999'}"><title>${escapeXml(`${options.parts[j]?.name ?? ''}: ${value.toFixed(1)}`)}</title></rect>`;
      base += v;
      return rect;
    });
    const mark =
      bar.mark === undefined
        ? []
        : [
            `<line x1="${(x - 4).toFixed(1)}" x2="${(x + barWidth + 4).toFixed(1)}" y1="${py(bar.mark).toFixed(1)}" y2="${py(bar.mark).toFixed(1)}" stroke="#000" stroke-width="2"/>`,
          ];
    const label = `<text x="${(x + barWidth / 2).toFixed(1)}" y="${height - m.bottom + 16}" text-anchor="middle">${escapeXml(bar.label)}</text>`;
    return [...segments, ...mark, label];
  });
  const legend = [
    ...options.parts,
    ...(options.markName ? [{ name: options.markName, color: '#000' }] : []),
  ].map(
    (p, i) =>
      `<rect x="${m.left + 8 + i * 120}" y="8" width="12" height="12" fill="${p.color}"/>` +
      `<text x="${m.left + 24 + i * 120}" y="18">${escapeXml(p.name)}</text>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="sans-serif" font-size="11" role="img" aria-label="${escapeXml(options.title)}">`,
    `<title>${escapeXml(options.title)}</title>`,
    ...grid,
    `<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${height - m.bottom}" stroke="#333"/>`,
    `<text transform="translate(14 ${(height - m.bottom + m.top) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(options.yLabel)}</text>`,
    ...bars,
    ...legend,
    '</svg>',
  ].join('\n');
}
