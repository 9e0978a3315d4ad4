/** Parsers for the summary lines of Kafka's perf tools, its end-to-end latency tool and pgbench. */

export interface ProducerPerf {
  readonly records: number;
  readonly recordsPerSecond: number;
  readonly mbPerSecond: number;
  readonly avgLatencyMs: number;
  readonly maxLatencyMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** `100000 records sent, 52910.05 records/sec (25.83 MB/sec), 533.13 ms avg latency, 862.00 ms max latency, 530 ms 50th, 800 ms 95th, 850 ms 99th, 860 ms 99.9th.` */
export function parseProducerPerf(output: string): ProducerPerf {
  const line = output
    .split('\n')
    .filter((l) => /records sent/.test(l) && /50th/.test(l))
    .at(-1);
  if (line === undefined) throw new Error(`no producer perf summary in:\n${output.slice(-2000)}`);
  const num = (re: RegExp): number => Number(re.exec(line)?.[1] ?? Number.NaN);
  return {
    records: num(/^\s*(\d+) records sent/),
    recordsPerSecond: num(/([\d.]+) records\/sec/),
    mbPerSecond: num(/\(([\d.]+) MB\/sec\)/),
    avgLatencyMs: num(/([\d.]+) ms avg latency/),
    maxLatencyMs: num(/([\d.]+) ms max latency/),
    p50Ms: num(/([\d.]+) ms 50th/),
    p99Ms: num(/([\d.]+) ms 99th/),
  };
}

export interface ConsumerPerf {
  readonly records: number;
  readonly recordsPerSecond: number;
  readonly mbPerSecond: number;
  /** Excluding the group join (rebalance) time. */
  readonly fetchRecordsPerSecond: number;
}

/** The CSV header and row ConsumerPerformance prints (start.time, end.time, data.consumed.in.MB, ...). */
export function parseConsumerPerf(output: string): ConsumerPerf {
  const lines = output.split('\n').map((l) => l.trim());
  const headerAt = lines.findIndex((l) => l.startsWith('start.time'));
  const header = lines[headerAt]?.split(',').map((c) => c.trim());
  const row = lines[headerAt + 1]?.split(',').map((c) => c.trim());
  if (headerAt < 0 || header === undefined || row === undefined)
    throw new Error(`no consumer perf summary in:\n${output.slice(-2000)}`);
  const col = (name: string): number => Number(row[header.indexOf(name)] ?? Number.NaN);
  return {
    records: col('data.consumed.in.nMsg'),
    recordsPerSecond: col('nMsg.sec'),
    mbPerSecond: col('MB.sec'),
    fetchRecordsPerSecond: col('fetch.nMsg.sec'),
  };
}

export interface EndToEndLatency {
  readonly avgMs: number;
  /** Whole milliseconds, as the tool prints them. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
}

/** `Avg latency: 1.7636 ms` and `Percentiles: 50th = 1, 99th = 9, 99.9th = 22` (EndToEndLatency). */
export function parseEndToEndLatency(output: string): EndToEndLatency {
  const num = (re: RegExp): number => Number(re.exec(output)?.[1] ?? Number.NaN);
  const avgMs = num(/Avg latency: ([\d.]+) ms/);
  const p50Ms = num(/50th = ([\d.]+)/);
  if (Number.isNaN(avgMs) || Number.isNaN(p50Ms))
    throw new Error(`no end-to-end latency summary in:\n${output.slice(-2000)}`);
  return { avgMs, p50Ms, p99Ms: num(/ 99th = ([\d.]+)/), p999Ms: num(/99\.9th = ([\d.]+)/) };
}

export interface PgbenchResult {
  readonly clients: number;
  readonly transactions: number;
  readonly tps: number;
  readonly latencyAvgMs: number;
}

/** `number of transactions actually processed: 12345`, `latency average = 1.234 ms`, `tps = 987.6 (without initial connection time)` */
export function parsePgbench(output: string): PgbenchResult {
  const num = (re: RegExp): number => Number(re.exec(output)?.[1] ?? Number.NaN);
  const tps = num(/tps = ([\d.]+)/);
  if (Number.isNaN(tps)) throw new Error(`no pgbench summary in:\n${output.slice(-2000)}`);
  return {
    clients: num(/number of clients: (\d+)/),
    transactions: num(/number of transactions actually processed: (\d+)/),
    tps,
    latencyAvgMs: num(/latency average = ([\d.]+) ms/),
  };
}
