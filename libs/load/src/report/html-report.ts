import { totalLag } from '../lag-monitor';
import { renderSummary, type LoadReport } from './report';
import { escapeXml, lineChart } from './svg-chart';

const Colors = ['#1f77b4', '#2ca02c', '#d62728', '#ff7f0e', '#9467bd', '#8c564b'];

/** A self-contained page: inline SVG and CSS, no scripts, no network. */
export function renderHtmlReport(report: LoadReport): string {
  const tl = report.timeline;
  const throughput = lineChart({
    title: 'Throughput',
    xLabel: 'seconds',
    yLabel: 'orders/s',
    series: [
      { name: 'offered', color: Colors[0] as string, points: tl.map((p) => [p.t, p.offered]) },
      { name: 'placed (202)', color: Colors[1] as string, points: tl.map((p) => [p.t, p.placed]) },
      { name: 'terminal events', color: Colors[3] as string, points: tl.map((p) => [p.t, p.terminal]) },
    ],
  });
  const e2e = tl.filter((p) => p.terminal > 0);
  const latency = lineChart({
    title: 'End-to-end latency (POST scheduled time to terminal event)',
    xLabel: 'seconds',
    yLabel: 'ms',
    series: [
      { name: 'p50', color: Colors[1] as string, points: e2e.map((p) => [p.t, p.e2e.p50]) },
      { name: 'p99', color: Colors[3] as string, points: e2e.map((p) => [p.t, p.e2e.p99]) },
      { name: 'max', color: Colors[2] as string, points: e2e.map((p) => [p.t, p.e2e.max]) },
    ],
  });
  const http = tl.filter((p) => p.placed > 0);
  const httpLatency = lineChart({
    title: 'HTTP latency (POST /orders)',
    xLabel: 'seconds',
    yLabel: 'ms',
    series: [
      { name: 'p50', color: Colors[1] as string, points: http.map((p) => [p.t, p.http.p50]) },
      { name: 'p99', color: Colors[3] as string, points: http.map((p) => [p.t, p.http.p99]) },
      { name: 'max', color: Colors[2] as string, points: http.map((p) => [p.t, p.http.max]) },
    ],
  });
  const groups = Object.keys(report.config.groups);
  const lag = lineChart({
    title: 'Consumer lag',
    xLabel: 'seconds',
    yLabel: 'records',
    series: [
      ...groups.map((group, i) => ({
        name: group,
        color: Colors[i % Colors.length] as string,
        points: report.lag.samples.map((s): [number, number] => [s.t, s.lag[group] ?? 0]),
      })),
      {
        name: 'total',
        color: '#000',
        points: report.lag.samples.map((s): [number, number] => [s.t, totalLag(s)]),
      },
    ],
  });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>loadgen ${escapeXml(report.startedAt)}</title>
<style>body{font-family:sans-serif;max-width:900px;margin:2em auto;color:#222}pre{background:#f6f6f6;padding:1em;overflow-x:auto}svg{display:block;margin:1em 0}</style>
</head>
<body>
<h1>Load generator report</h1>
<p>Started ${escapeXml(report.startedAt)} against ${escapeXml(report.config.baseUrl)}.</p>
<pre>${escapeXml(renderSummary(report).join('\n'))}</pre>
<h2>Throughput</h2>
${throughput}
<h2>Latency</h2>
${latency}
${httpLatency}
<h2>Consumer lag</h2>
${lag}
<h2>Configuration</h2>
<pre>${escapeXml(JSON.stringify(report.config, null, 2))}</pre>
</body>
</html>
`;
}
