import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { PercentileSummary } from '@pipeline/load';
import type { BenchResults, StepResult } from './bench-results';
import { hopsSection } from './benchmarks-md-hops';
import { plots } from './benchmarks-plots';
import {
  againMark,
  consoleCostTable,
  consoleCpuRow,
  countsTable,
  cpuPerStepTable,
  wakeupsPerStepTable,
  headline,
  perServiceCountsTable,
  sustainableStep,
} from './benchmarks-md-work';

const START = '<!-- bench:results:start (written by npm run bench) -->';
const END = '<!-- bench:results:end -->';
const PLOTS = 'docs/benchmarks';

const f0 = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(0));
const f1 = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(1));
const pct = (n: number): string => `${(n * 100).toFixed(1)} %`;
const lat = (s: PercentileSummary): string =>
  `${f0(s.p50)} / ${f0(s.p90)} / ${f0(s.p99)} / ${f0(s.p999)} / ${f0(s.max)}`;

function cpuTable(results: BenchResults, step: StepResult | undefined): string[] {
  const [cores, idle] = [results.machine.cores, results.idleCpu];
  if (!step?.cpu) return ['(not measured)'];
  const { cpu, offered } = step;
  const orders = step.ordersInCpuWindow ?? offered * cpu.seconds;
  // CPU above what the process burns with no load at all (polling, heartbeats, timers).
  const marginalMs = (sec: number, name: string): number =>
    (Math.max(0, sec - ((idle?.byGroup[name] ?? 0) / (idle?.seconds ?? 1)) * cpu.seconds) * 1000) / orders;
  const rows = Object.entries(cpu.byGroup)
    .sort(([, a], [, b]) => b - a)
    .map(
      ([name, sec]) =>
        `| ${name} | ${f1((sec * 1000) / orders)} | ${idle ? f1(marginalMs(sec, name)) : '–'} | ${pct(sec / cpu.seconds)} | ${idle ? pct((idle.byGroup[name] ?? 0) / idle.seconds) : '–'} |`,
    );
  const total = Object.values(cpu.byGroup).reduce((a, b) => a + b, 0);
  return [
    `Over ${f0(cpu.seconds)} s at ${offered} orders/s offered, ${f0(orders)} orders placed; the machine was ${pct(cpu.machineBusy)} busy (all cores).`,
    `The pipeline's processes used ${f1((total * 1000) / orders)} CPU ms per order: on ${cores} cores that is a CPU-bound ceiling of about ${f0((orders / total) * cores)} orders/s if nothing else ran.`,
    '',
    '',
    '| process | CPU ms per order | above idle | share of one core | idle, no load |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows,
    ...consoleCpuRow(step, results),
    `| everything else on the machine | – | – | ${pct(cpu.other / cpu.seconds)} | ${idle ? pct(idle.other / idle.seconds) : '–'} |`,
  ];
}

/** Where the emails went and, from the counting sink, how many arrived (one per completed order). */
function mailLine(results: BenchResults): string {
  const placed = results.steps.reduce((sum, s) => sum + s.placed, 0);
  const e = results.emails;
  return `Mail: ${results.mailSink}${e ? `; it accepted ${e.messages} emails for ${placed} orders placed over the run` : ''}.`;
}

/** The load generator's figures at the highest step it ran: it must not be what limited the run. */
function generatorLine(results: BenchResults): string {
  const top = results.steps
    .filter((s) => s.generator !== undefined)
    .reduce<StepResult | undefined>((a, b) => (a === undefined || b.offered > a.offered ? b : a), undefined);
  if (!top?.generator) return '';
  const g = top.generator;
  return `Load generator at ${top.offered} orders/s offered: ${g.cpuMsPerOrder.toFixed(2)} CPU ms per order, ${pct(g.coreShare)} of one core, send delay p99 ${f1(g.sendDelayP99Ms)} ms (scheduled time to hand-over to its HTTP client).`;
}

/** The machine's own limits, measured in the same run: Kafka's perf tools and pgbench. */
function limitsLines(results: BenchResults): string[] {
  const k = results.kafka;
  const lines: string[] = [];
  if (k) {
    lines.push(
      `Kafka perf tools on the same broker, ${k.recordSize}-byte records, 6 partitions, acks=all:`,
      '',
      '| tool | records/s | MB/s | latency avg / p99 ms |',
      '| --- | ---: | ---: | --- |',
      `| producer, linger.ms=0 | ${f0(k.producer.linger0.recordsPerSecond)} | ${f1(k.producer.linger0.mbPerSecond)} | ${f0(k.producer.linger0.avgLatencyMs)} / ${f0(k.producer.linger0.p99Ms)} |`,
      `| producer, linger.ms=20 | ${f0(k.producer.linger20.recordsPerSecond)} | ${f1(k.producer.linger20.mbPerSecond)} | ${f0(k.producer.linger20.avgLatencyMs)} / ${f0(k.producer.linger20.p99Ms)} |`,
      `| consumer | ${f0(k.consumer.recordsPerSecond)} | ${f1(k.consumer.mbPerSecond)} | – |`,
      ...(k.hop
        ? [
            `| end-to-end latency: one record at a time, produced and fetched (1 partition, ${k.hopRecords} records) | – | – | ${k.hop.avgMs.toFixed(2)} / ${f0(k.hop.p99Ms)} |`,
          ]
        : []),
      '',
      `Batching (linger.ms 20 vs 0) buys ×${(k.producer.linger20.recordsPerSecond / k.producer.linger0.recordsPerSecond).toFixed(2)} producer throughput here.`,
      '',
    );
  }
  if (results.pgbench) {
    lines.push(
      'pgbench, one pipeline hop per transaction (inbox insert, stock update, outbox insert, commit; then the relay’s delete): ' +
        results.pgbench
          .map((r) => `${r.clients} clients ${f0(r.tps)} tps (avg ${r.latencyAvgMs.toFixed(2)} ms)`)
          .join(', ') +
        '.',
      '',
    );
  }
  return lines;
}

/** What the pipeline's rate is as a share of those limits. */
function ratioLines(results: BenchResults): string[] {
  const k = results.kafka;
  const perOrder = results.recordsPerOrder;
  const bestPg = results.pgbench?.reduce((a, b) => (b.tps > a.tps ? b : a));
  const sustainable = sustainableStep(results);
  const lines: string[] = [];
  // At the highest sustainable rate; when no step was sustainable, at the best rate delivered.
  const delivered = Math.max(
    0,
    ...results.steps.filter((s) => s.label !== 'warm-up').map((s) => s.terminalPerSecond),
  );
  const rate = results.sustainableRate > 0 ? results.sustainableRate : Math.round(delivered * 10) / 10;
  const at =
    sustainable ?? results.steps.find((s) => s.label !== 'warm-up' && s.terminalPerSecond === delivered);
  if (perOrder && rate > 0) {
    const produced = perOrder.produced * rate;
    const consumed = perOrder.consumed * rate;
    lines.push(
      `### Ratios at ${rate} orders/s${results.sustainableRate > 0 ? '' : ' (delivered, not sustainable)'}`,
      '',
      `Each order makes ${perOrder.produced} Kafka records and ${perOrder.consumed} consumed records (summed over consumer groups).`,
      '',
      ...(k
        ? [
            `- Kafka produce: ${f0(produced)} records/s = ${pct(produced / k.producer.linger20.recordsPerSecond)} of the producer tool (linger 20), ${pct(produced / k.producer.linger0.recordsPerSecond)} of linger 0.`,
            `- Kafka consume: ${f0(consumed)} records/s = ${pct(consumed / k.consumer.recordsPerSecond)} of the consumer tool.`,
          ]
        : []),
      ...(bestPg && at?.perOrder
        ? [
            `- PostgreSQL: ${f1(Object.values(at.perOrder).reduce((a, c) => a + c.commits, 0) * rate)} commits/s over the five databases = ${pct((Object.values(at.perOrder).reduce((a, c) => a + c.commits, 0) * rate) / bestPg.tps)} of pgbench's best one-hop tps (${f0(bestPg.tps)}); ${f1(bestPg.tps / rate)} hop transactions per order would fit.`,
          ]
        : []),
      '',
    );
  }
  return lines;
}

const verdictText = (s: StepResult): string =>
  [s.verdict.sustainable ? 'kept up' : s.verdict.reasons.join('; '), ...(s.verdict.notes ?? [])].join('; ');

export function renderSection(results: BenchResults, reportDir: string): string {
  const m = results.machine;
  const sustainable = sustainableStep(results);
  const half = results.halfRate;
  const lines: string[] = [
    START,
    '',
    `## Results of the last run (${results.mode}, ${results.startedAt.slice(0, 16).replace('T', ' ')} UTC)`,
    '',
    ...headline(results),
    '',
    `Machine: ${m.cores} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.os} (kernel ${m.kernel}); Node ${m.node}, Kafka ${m.kafka} (one KRaft node), PostgreSQL ${m.postgres}. Load average at start: ${m.loadAverageAtStart.join(', ')}. Tracing: ${results.tracing}.`,
    '',
    mailLine(results),
    generatorLine(results),
    '',
    'A step is sustainable with 0 lost, 0 duplicated, e2e p99 ≤ 1 s and a flat lag.',
    half
      ? `At half of it (${half.offered} orders/s): e2e p50 ${f0(half.e2e.p50)} ms, p99 ${f0(half.e2e.p99)} ms (POST→order.confirmed p50 ${f0(half.e2eConfirmed.p50)} ms, p99 ${f0(half.e2eConfirmed.p99)} ms); lost ${half.lost}, duplicated ${half.duplicated}.`
      : '',
    '',
    '| step | offered/s | placed/s | terminal/s | e2e ms p50 / p90 / p99 / p99.9 / max | HTTP p99 ms | lost | dup | max lag | verdict |',
    '| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |',
    ...results.steps.map(
      (s) =>
        `| ${s.label}${againMark(s)} | ${s.offered} | ${f1(s.achieved)} | ${f1(s.terminalPerSecond)} | ${lat(s.e2e)} | ${f0(s.http.p99)} | ${s.lost} | ${s.duplicated} | ${Math.max(0, ...Object.values(s.maxLagByGroup))} | ${verdictText(s)} |`,
    ),
    '',
    `![throughput](${PLOTS}/throughput.svg)`,
    `![latency](${PLOTS}/latency.svg)`,
    `![latency by rate](${PLOTS}/latency-by-rate.svg)`,
    `![CPU per order](${PLOTS}/cpu-per-order.svg)`,
    '',
    `Per-step HTML reports (timelines, lag, histograms): \`${reportDir}/\` (not committed).`,
    '',
    '### Work per order at each step: counts (machine-independent)',
    '',
    ...countsTable(results),
    '',
    ...perServiceCountsTable(results),
    '',
    '### Where an order’s milliseconds go, hop by hop (from traces)',
    '',
    ...hopsSection(results, PLOTS),
    '',
    '### CPU ms per order per process at each step',
    '',
    ...(results.steps.some((s) => s.speedCheckMs !== undefined)
      ? [
          "The last column is the speed check the bench ran during the step (the CPU ms one round of a fixed piece of work cost its own thread, a round every 2 s, the mean, `tools/bench/speed-check.ts`; lower is faster): where it rose, the machine itself was slower, and the step's CPU figures with it.",
          '',
        ]
      : []),
    ...cpuPerStepTable(results),
    '',
    '### Wake-ups per order per process at each step',
    '',
    'How often each process went to sleep waiting (a socket, a timer, a lock) and was woken, per order: the voluntary context switches of all its threads (`/proc/<pid>/task/*/status`). A count, like the Kafka requests: a faster machine makes the same wake-ups for the same work; on a virtual machine each costs a switch through the hypervisor.',
    '',
    ...wakeupsPerStepTable(results),
    '',
    '### The console’s cost at each step',
    '',
    ...consoleCostTable(results),
    '',
    `### Where the CPU goes (${sustainable ? 'at the highest sustainable rate' : 'in the half-rate step'})`,
    '',
    ...cpuTable(results, sustainable ?? half),
    '',
    `RSS in MiB, peak during the run (once ready, before load): ${Object.entries(results.maxRssMiB)
      .map(
        ([name, mib]) =>
          `${name} ${f0(mib)}${results.rssAtReadyMiB[name] ? ` (${f0(results.rssAtReadyMiB[name])})` : ''}`,
      )
      .join(', ')}.`,
    '',
    '### Database work per order',
    '',
    'Commits and row changes per placed order, from `pg_stat_database` over the same window:',
    '',
    '| database | commits | rollbacks | rows inserted | updated | deleted |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...Object.entries((sustainable ?? half)?.perOrder ?? {}).map(
      ([db, c]) => `| ${db} | ${c.commits} | ${c.rollbacks} | ${c.inserted} | ${c.updated} | ${c.deleted} |`,
    ),
    '',
    '### The machine’s own limits, measured in the same run',
    '',
  ];
  lines.push(...limitsLines(results), ...ratioLines(results));
  if (results.errors.length > 0)
    lines.push('Errors in this run:', '', ...results.errors.map((e) => `- ${e}`), '');
  lines.push(END);
  return lines.filter((line, i, all) => !(line === '' && all[i - 1] === '')).join('\n');
}

const SKELETON = `# Benchmarks

\`npm run bench\` (or \`npm run bench -- --quick\`) starts the pipeline on this machine, warms it up, steps the
offered rate until the pipeline stops keeping up, and measures Kafka's and PostgreSQL's own limits
in the same run. The section below is rewritten by every run.

${START}
${END}
`;

/** Writes the plots and replaces the generated section of BENCHMARKS.md; returns what it wrote. */
export async function writeBenchmarks(
  results: BenchResults,
  options: { repoRoot: string; outDir: string; write: boolean },
): Promise<string[]> {
  const written: string[] = [];
  const charts = plots(results);
  for (const [file, svg] of Object.entries(charts)) {
    await writeFile(`${options.outDir}/${file}`, svg);
  }
  const reportDir = options.outDir.slice(options.repoRoot.length + 1);
  const section = renderSection(results, reportDir);
  await writeFile(`${options.outDir}/BENCHMARKS-section.md`, `${section}\n`);
  written.push(`${reportDir}/BENCHMARKS-section.md`);
  if (!options.write) return written;
  await mkdir(`${options.repoRoot}/${PLOTS}`, { recursive: true });
  for (const [file, svg] of Object.entries(charts)) {
    await writeFile(`${options.repoRoot}/${PLOTS}/${file}`, svg);
    written.push(`${PLOTS}/${file}`);
  }
  const path = `${options.repoRoot}/BENCHMARKS.md`;
  const current = await readFile(path, 'utf8').catch(() => SKELETON);
  const base =
    current.includes(START) && current.includes(END) ? current : `${current.trimEnd()}\n\n${START}\n${END}\n`;
  const next = base.slice(0, base.indexOf(START)) + section + base.slice(base.indexOf(END) + END.length);
  // Formatted as the repository formats Markdown, so a fresh run keeps `prettier --check` green.
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(path)) ?? {};
  await writeFile(path, await prettier.format(next, { ...config, filepath: path }));
  written.push('BENCHMARKS.md');
  return written;
}
