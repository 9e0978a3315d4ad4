/** A dependency-free line chart as an inline SVG string (the report must open offline). */
export interface Series {
  readonly name: string;
  readonly color: string;
  readonly points: readonly (readonly [number, number])[];
}

export interface ChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
  readonly width?: number;
  readonly height?: number;
}

export const escapeXml = (text: string): string => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** 1, 2, 5 x 10^n steps giving about `count` ticks from 0 to max. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let v = 0; v < max + step; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

const fmt = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0+$/, ''));

export function lineChart(options: ChartOptions): string {
  const width = options.width ?? 860;
  const height = options.height ?? 300;
  const m = { left: 64, right: 16, top: 32, bottom: 44 };
  const all = options.series.flatMap((s) => s.points);
  const xTicks = niceTicks(Math.max(1, ...all.map(([x]) => x)));
  const yTicks = niceTicks(Math.max(0, ...all.map(([, y]) => y)));
  const xMax = xTicks.at(-1) ?? 1;
  const yMax = yTicks.at(-1) ?? 1;
  const px = (x: number): number => m.left + (x / xMax) * (width - m.left - m.right);
  const py = (y: number): number => height - m.bottom - (y / yMax) * (height - m.top - m.bottom);
  const grid = [
    ...yTicks.map(
      (y) =>
        `<line x1="${m.left}" x2="${width - m.right}" y1="${py(y).toFixed(1)}" y2="${py(y).toFixed(1)}" stroke="#ddd"/>` +
        `<text x="${m.left - 6}" y="${(py(y) + 4).toFixed(1)}" text-anchor="end">${fmt(y)}</text>`,
    ),
    ...xTicks.map(
      (x) =>
        `<text x="${px(x).toFixed(1)}" y="${height - m.bottom + 16}" text-anchor="middle">${fmt(x)}</text>`,
    ),
  ];
  const lines = options.series.map(
    (s) =>
      `<polyline data-series="${escapeXml(s.name)}" fill="none" stroke="${s.color}" stroke-width="1.5" points="${s.points
        .map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`)
        .join(' ')}"/>`,
  );
  const legend = options.series.map(
    (s, i) =>
      `<rect x="${m.left + 8 + i * 150}" y="8" width="12" height="12" fill="${s.color}"/>` +
      `<text x="${m.left + 24 + i * 150}" y="18">${escapeXml(s.name)}</text>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="sans-serif" font-size="11" role="img" aria-label="${escapeXml(options.title)}">`,
    `<title>${escapeXml(options.title)}</title>`,
    ...grid,
    `<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${height - m.bottom}" stroke="#333"/>`,
    `<line x1="${m.left}" x2="${width - m.right}" y1="${height - m.bottom}" y2="${height - m.bottom}" stroke="#333"/>`,
    `<text x="${(width + m.left) / 2}" y="${height - 8}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`,
    `<text transform="translate(14 ${(height - m.bottom + m.top) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(options.yLabel)}</text>`,
    ...lines,
    ...legend,
    '</svg>',
  ].join('\n');
}
