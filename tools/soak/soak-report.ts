import escapeHtml from 'escape-html';
import { lineChart } from '@pipeline/load';
import type { RateChoice } from './rate-choice';
import { clock, renderChecks, type SoakPolicy, type SoakSample, type SoakVerdict } from './soak-verdict';

/** What soak.json holds, and soak.html shows. */
export interface SoakResult {
  readonly startedAt: string;
  readonly minutes: number;
  readonly sampleSeconds: number;
  readonly rate: RateChoice;
  readonly policy: SoakPolicy;
  readonly verdict: SoakVerdict;
  readonly samples: readonly SoakSample[];
  /** The load engine's summary of the run (its full report is load.json). */
  readonly load: readonly string[];
}

const Colors = ['#1f77b4', '#2ca02c', '#d62728', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];

const total = (values: Readonly<Record<string, number | null>>): number =>
  Object.values(values).reduce<number>((sum, v) => sum + (v ?? 0), 0);

/** The progress line printed with every sample. */
export function renderSampleLine(sample: SoakSample, totalSeconds: number): string {
  const rss = Object.entries(sample.rssMiB)
    .map(([name, mib]) => `${name} ${mib === null ? '?' : mib.toFixed(0)}`)
    .join(' ');
  const lag = Object.values(sample.lag).some((v) => v === null)
    ? `${total(sample.lag)}+?`
    : total(sample.lag);
  return `[soak ${clock(sample.t).padStart(5)}/${clock(totalSeconds)}] ${[
    `${sample.placedPerSecond.toFixed(1)} orders/s`,
    `lag ${lag}`,
    `e2e p99 ${sample.e2eP99Ms === null ? '–' : `${sample.e2eP99Ms.toFixed(0)} ms`}`,
    `outbox ${total(sample.outboxBacklog)}`,
    `RSS MiB ${rss}`,
  ].join(' | ')}`;
}

/** One line per name over the samples, in minutes; null values leave a gap out. */
function perName(
  samples: readonly SoakSample[],
  of: (s: SoakSample) => Readonly<Record<string, number | null>>,
): { name: string; color: string; points: [number, number][] }[] {
  const names = [...new Set(samples.flatMap((s) => Object.keys(of(s))))];
  return names.map((name, i) => ({
    name,
    color: Colors[i % Colors.length]!,
    points: samples.flatMap((s): [number, number][] => {
      const v = of(s)[name];
      return v === null || v === undefined ? [] : [[s.t / 60, v]];
    }),
  }));
}

const chart = (title: string, yLabel: string, series: ReturnType<typeof perName>): string =>
  lineChart({ title, xLabel: 'minutes of load', yLabel, series, width: 960 });

export function renderSoakHtml(result: SoakResult): string {
  const s = result.samples;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>soak ${escapeHtml(result.startedAt)}</title>
<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}pre{background:#f6f6f6;padding:1em;overflow-x:auto;white-space:pre-wrap}svg{display:block;margin:1em 0}</style>
</head>
<body>
<h1>Soak: ${escapeHtml(result.verdict.result)}</h1>
<p>Started ${escapeHtml(result.startedAt)}: ${result.minutes} minutes at ${result.rate.rate} orders/s (${escapeHtml(result.rate.why)}), a sample every ${result.sampleSeconds} s. The load engine's own report: <a href="load.html">load.html</a>${result.rate.sustainable === undefined ? '' : "; the ramp's steps: loadgen-*.html in this folder"}.</p>
<pre>${escapeHtml(renderChecks(result.verdict).join('\n'))}</pre>
<h2>RSS per process</h2>
${chart(
  'RSS per process (VmRSS)',
  'MiB',
  perName(s, (x) => x.rssMiB),
)}
<h2>Consumer lag per group</h2>
${chart(
  'Consumer lag per group',
  'records',
  perName(s, (x) => x.lag),
)}
<h2>End-to-end p99</h2>
${chart(
  'e2e p99: the highest per-second p99 between two samples',
  'ms',
  perName(s, (x) => ({ 'e2e p99': x.e2eP99Ms })),
)}
<h2>Outbox backlog per process</h2>
${chart(
  'Outbox backlog (pipeline_outbox_backlog_events)',
  'rows',
  perName(s, (x) => x.outboxBacklog),
)}
<h2>Throughput</h2>
${chart(
  'Orders placed per second',
  'orders/s',
  perName(s, (x) => ({ placed: x.placedPerSecond })),
)}
<h2>The load engine's summary</h2>
<pre>${escapeHtml(result.load.join('\n'))}</pre>
</body>
</html>
`;
}
