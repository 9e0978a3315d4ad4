/**
 * The parts of BENCHMARKS.md's generated section that let two machines' runs be compared: the
 * normalised headline with the run's calibration, the counts per order at each step, and CPU ms
 * per order per process at each step.
 */
import type { BenchResults, StepResult } from './bench-results';
import { perThousandTps, ReferenceRun } from './calibration';
import { speedSpread } from './speed-check';

const f0 = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(0));
const f1 = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(1));
const f2 = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(2));
const pct = (n: number): string => `${(n * 100).toFixed(1)} %`;

/** The APIs shown in their own column; the rest are summed under "other". */
const MainApis = ['Produce', 'Fetch', 'OffsetCommit', 'Heartbeat', 'Metadata'] as const;

/** ' (again)' for the second run of a rate whose first run was not kept up with. */
export const againMark = (s: StepResult): string => (s.again ? ' (again)' : '');

export const stepName = (s: StepResult): string => `${s.label} ${s.offered}/s${againMark(s)}`;

/** A step by its rate, as the headline and the plots' legends name it: "100/s", "50/s (half rate)". */
export const rateLabel = (s: StepResult): string =>
  `${s.offered}/s${s.label === 'half rate' ? ' (half rate)' : againMark(s)}`;

/** The ramp's steps, each rate's last run only: a run that was run again is superseded. */
export const rampSteps = (steps: readonly StepResult[]): StepResult[] =>
  steps.filter(
    (s, i) => s.label === 'step' && !steps.slice(i + 1).some((t) => t.again && t.offered === s.offered),
  );

/** The run of the highest sustainable rate the results report (the second, if it took two). */
export const sustainableStep = (results: BenchResults): StepResult | undefined =>
  results.steps.find(
    (s) => s.label === 'step' && s.offered === results.sustainableRate && s.verdict.sustainable,
  );

/** Steps with counts, in run order. */
const counted = (results: BenchResults): StepResult[] => results.steps.filter((s) => s.counts !== undefined);

/** The run's calibration and the machine-independent headline; first in the section. */
export function headline(results: BenchResults): string[] {
  const n = results.normalised;
  const k = results.kafka;
  const rate = results.sustainableRate;
  const perStep = results.steps
    .filter((s) => s.label !== 'warm-up' && s.cpuMsPerOrder)
    .map((s) => `${rateLabel(s)} ${f1(s.cpuMsPerOrder?.total)}`);
  return [
    `**Highest sustainable rate: ${rate} orders/s${n ? ` = ${f0(n.ordersPerSecondPer1000Tps)} orders/s per 1,000 pgbench one-hop tps` : ''}.**`,
    `Calibration of this machine, in the same run: ${
      n ? `pgbench one-hop ${n.pgbenchTps} tps (best, ${n.pgbenchClients} clients)` : 'pgbench not measured'
    }; ${k ? `Kafka producer tool ${f0(k.producer.linger0.recordsPerSecond)} records/s (linger 0), consumer tool ${f0(k.consumer.recordsPerSecond)} records/s` : "Kafka's perf tools not measured"}.`,
    `Reference (${ReferenceRun.label}, the section above): ${ReferenceRun.sustainable} orders/s on ${ReferenceRun.pgbenchTps.toLocaleString('en-US')} tps = ${f0(perThousandTps(ReferenceRun.sustainable, ReferenceRun.pgbenchTps))} per 1,000 tps, ${ReferenceRun.cpuMsPerOrder.toFixed(1)} CPU ms per order.`,
    perStep.length > 0 ? `CPU ms per order over all processes, by offered rate: ${perStep.join(', ')}.` : '',
    speedCheckLine(results),
    ...rampLines(results),
  ];
}

function rampLines(results: BenchResults): string[] {
  const w = results.warmup;
  const lines: string[] = [];
  if (w)
    lines.push(
      `Warm-up: ${w.settled ? 'settled' : 'did not settle'} after ${w.seconds} s (${w.windows.length} windows of ${w.windows[0]?.rate ?? '–'} orders/s; ${w.measure === 'kafka' ? "the broker's" : "the pipeline's"} CPU ms per order ${w.windows.map((x) => f2(x.settleMsPerOrder)).join(' → ')}; settled means within ${f0(w.tolerance * 100)} % of the window before)${results.kafkaUptimeSeconds !== undefined ? `; the broker had been running for ${f0(results.kafkaUptimeSeconds)} s when the bench began` : ''}.`,
    );
  const down = results.ramp?.steppedDown ?? [];
  if (down.length > 0)
    lines.push(
      `The ramp's first step was not sustainable: stepped down to ${down.join(', ')} orders/s${results.ramp?.floorReached ? ', and not even the floor was kept up with' : ''}.`,
    );
  return lines;
}

/** Kafka requests by API, statements and commits per order, at each step. */
export function countsTable(results: BenchResults): string[] {
  const steps = counted(results);
  if (steps.length === 0) return ['(counts not measured)'];
  const row = (s: StepResult): string => {
    const c = s.counts!;
    const byApi = c.kafkaRequests.byApi;
    const other = Object.entries(byApi)
      .filter(([api]) => !(MainApis as readonly string[]).includes(api))
      .reduce((a, [, n]) => a + n, 0);
    return `| ${stepName(s)} | ${f1(s.e2e.p50)} | ${f1(s.e2e.p99)} | ${f2(c.kafkaRequests.total)} | ${f2(c.aboveIdle?.kafkaRequests)} | ${MainApis.map((api) => f2(byApi[api] ?? 0)).join(' | ')} | ${f2(other)} | ${f2(c.dbCommits.total)} | ${f2(c.aboveIdle?.dbCommits)} | ${f2(c.dbStatements.total)} | ${f2(c.aboveIdle?.dbStatements)} |`;
  };
  const idle = results.idleCounts;
  return [
    'Per order placed in the step’s load window, summed over the five services: Kafka requests by API (their kafkajs clients: consumer, producers, admin; the load generator’s own consumer is not counted), PostgreSQL commits (`pg_stat_database`; a SELECT outside a transaction counts as one; backends report them up to 10 s late when idle, so short windows are approximate) and statements sent (BEGIN and COMMIT included). End-to-end latency (scheduled send to the terminal event, all orders of the step) stands beside them. At a step the pipeline did not keep up with, a service that fell behind did less than the orders placed asked for, so its counts per order read low there. “Above idle” takes out what the services do with no load at all' +
      (idle
        ? ` (${f1(idle.kafkaRequests)} Kafka requests, ${f1(idle.dbCommits)} commits and ${f1(idle.dbStatements)} statements per second, measured with the idle CPU).`
        : '.'),
    '',
    `| step | e2e p50 ms | e2e p99 ms | Kafka requests | above idle | ${MainApis.join(' | ')} | other | commits | above idle | statements | above idle |`,
    `| --- | ---: | ---: | ---: | ---: | ${MainApis.map(() => '---:').join(' | ')} | ---: | ---: | ---: | ---: | ---: |`,
    ...steps.map(row),
  ];
}

/** The steps the issue asks the counts at: 10, 25 and 100 orders/s and the sustainable rate. */
function keySteps(results: BenchResults): StepResult[] {
  const ramp = rampSteps(counted(results));
  const wanted = new Set([10, 25, 100, results.sustainableRate]);
  const chosen = ramp.filter(
    (s, i) => wanted.has(s.offered) && ramp.findIndex((t) => t.offered === s.offered) === i,
  );
  return chosen.length > 0 ? chosen : ramp.slice(0, 3);
}

/** Requests, statements and commits per order per service at the key steps. */
export function perServiceCountsTable(results: BenchResults): string[] {
  const steps = keySteps(results);
  if (steps.length === 0) return [];
  const services = Object.keys(steps[0]!.counts!.kafkaRequests.byService);
  const cell = (s: StepResult, service: string): string => {
    const c = s.counts!;
    return `${f2(c.kafkaRequests.byService[service])} / ${f2(c.dbStatements.byService[service])} / ${f2(c.dbCommits.byService[service])}`;
  };
  return [
    'Per service: Kafka requests / statements / commits per order.',
    '',
    `| service | ${steps.map(stepName).join(' | ')} |`,
    `| --- | ${steps.map(() => '---:').join(' | ')} |`,
    ...services.map((service) => `| ${service} | ${steps.map((s) => cell(s, service)).join(' | ')} |`),
  ];
}

type PerProcess = { readonly total: number; readonly byProcess: Readonly<Record<string, number>> };

/** One figure per order per process at every step that has it, with the total (and `extra` after it). */
function perProcessTable(
  results: BenchResults,
  of: (s: StepResult) => PerProcess | undefined,
  format: (n: number | undefined) => string,
  extra?: { readonly head: string; readonly cell: (s: StepResult) => string },
): string[] {
  const steps = results.steps.filter((s) => of(s) !== undefined);
  if (steps.length === 0) return ['(not measured)'];
  const processes = Object.keys(of(steps[0]!)!.byProcess);
  const short = (name: string): string => name.replace(/-service$/, '').replace(/ \(bench backends\)$/, '');
  const [head, rule] = extra ? [` ${extra.head} |`, ' ---: |'] : ['', ''];
  return [
    `| step | ${processes.map(short).join(' | ')} | total |${head}`,
    `| --- | ${processes.map(() => '---:').join(' | ')} | ---: |${rule}`,
    ...steps.map(
      (s) =>
        `| ${stepName(s)} | ${processes.map((p) => format(of(s)!.byProcess[p])).join(' | ')} | ${format(of(s)!.total)} |${extra ? ` ${extra.cell(s)} |` : ''}`,
    ),
  ];
}

/** CPU ms per order per process at every step of the run, with the speed check during the step. */
export const cpuPerStepTable = (results: BenchResults): string[] =>
  perProcessTable(
    results,
    (s) => s.cpuMsPerOrder,
    f2,
    results.steps.some((s) => s.speedCheckMs !== undefined)
      ? { head: 'speed check ms', cell: (s) => f1(s.speedCheckMs) }
      : undefined,
  );

/**
 * The speed checks' range over the run (`speed-check.ts`): how far the machine's own speed moved
 * while the steps ran. Empty when the run made none.
 */
export function speedCheckLine(results: BenchResults): string {
  const checks = results.steps.map((s) => s.speedCheckMs).filter((ms): ms is number => ms !== undefined);
  const spread = speedSpread(checks);
  if (spread === undefined) return '';
  const moved =
    spread > SpeedSpreadWorthSaying
      ? `the machine's speed moved by ${f0(spread * 100)} % during the run: compare the CPU and latency figures of steps whose checks differ with care (counts do not depend on it)`
      : `within ${f0(spread * 100)} % of each other: the machine kept its speed`;
  return `Speed check during each step (the CPU ms one round of a fixed piece of work costs the bench's thread, a round every 2 s, the mean; lower is faster): ${f1(Math.min(...checks))}-${f1(Math.max(...checks))} ms, ${moved}.`;
}

/** A spread of the speed checks above this is worth a warning: more than the runs' usual noise. */
const SpeedSpreadWorthSaying = 0.15;

/** Wake-ups (voluntary context switches) per order per process at every step of the run. */
export const wakeupsPerStepTable = (results: BenchResults): string[] =>
  perProcessTable(results, (s) => s.wakeupsPerOrder, f1);

/** The five services' CPU ms per order at a step (their rows of `cpuMsPerOrder`). */
export const servicesMsPerOrder = (s: StepResult): number | undefined =>
  s.cpuMsPerOrder
    ? Math.round(
        Object.entries(s.cpuMsPerOrder.byProcess)
          .filter(([name]) => name.endsWith('-service'))
          .reduce((sum, [, ms]) => sum + ms, 0) * 100,
      ) / 100
    : undefined;

/** The console's row at every step: its own process, with a live flow page open, beside the pipeline's. */
export function consoleCostTable(results: BenchResults): string[] {
  const steps = results.steps.filter((s) => s.console !== undefined);
  const c = results.console;
  if (steps.length === 0 || c === undefined)
    return ['(the console was not measured in this run: `--skip console`, or a bench from before it was)'];
  const polls = c.polls.map((p) => `\`GET ${p.path}\` every ${f0(p.everyMs / 1000)} s`).join(', ');
  return [
    `The console ran beside the pipeline on the bench's topics (its own consumer group on the saga topics) with one live flow page open on it: a server-sent-events client on \`${c.stream}\` and what the page polls (${polls}), as a browser left open would. Its CPU is in no total above.${c.idleCoreShare !== undefined ? ` Idle, with the page open and no load: ${pct(c.idleCoreShare)} of one core.` : ''}`,
    '',
    '| step | console CPU ms per order | above idle | share of one core | five services | all processes | stream events | polls ok / failed |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...steps.map((s) => {
      const k = s.console!;
      return `| ${stepName(s)} | ${f2(k.cpuMsPerOrder)} | ${f2(k.aboveIdleMsPerOrder)} | ${pct(k.coreShare)} | ${f2(servicesMsPerOrder(s))} | ${f2(s.cpuMsPerOrder?.total)} | ${f0(k.page?.streamEvents)} | ${k.page ? `${k.page.pollsOk} / ${k.page.pollsFailed}` : '–'} |`;
    }),
  ];
}

/** The console's line in "where the CPU goes", kept apart from the pipeline's processes. */
export function consoleCpuRow(step: StepResult | undefined, results: BenchResults): string[] {
  const k = step?.console;
  if (!k) return [];
  const idle = results.console?.idleCoreShare;
  return [
    `| console, a flow page open (not in the total) | ${f1(k.cpuMsPerOrder)} | ${f1(k.aboveIdleMsPerOrder)} | ${pct(k.coreShare)} | ${idle !== undefined ? pct(idle) : '–'} |`,
  ];
}
