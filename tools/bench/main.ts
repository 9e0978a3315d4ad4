/**
 * `npm run bench`: the pipeline's highest sustainable rate, its latency at half that rate, and the
 * machine's own Kafka and PostgreSQL limits measured in the same run; writes BENCHMARKS.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { createKafka } from '@pipeline/messaging';
import { logLevel, type Admin } from 'kafkajs';
import { benchResults, recordsPerOrder } from './assemble-results';
import { BENCH_USAGE, parseBenchArgs, type BenchConfig } from './bench-args';
import { describeMailSink, describeTracing, repoRoot, stackOptions } from './bench-environment';
import { say, secondsSinceStart } from './bench-log';
import type { BenchResults } from './bench-results';
import { writeBenchmarks } from './benchmarks-md';
import { describeMachine } from './machine';
import { runPipeline, type PipelineMeasurements, type PipelineOutcome } from './pipeline-run';
import { measureKafka, measurePostgres } from './reference-limits';
import { runSummaryLines } from './run-summary';
import { withHopBreakdowns } from './step-traces';
import {
  databaseName,
  dropDatabases,
  migrate,
  recreateDatabases,
  Services,
  withClient,
  type StackOptions,
} from './stack-under-test';
import { runMain } from '../run-main';

/** Runs one part of the bench; a failure is recorded and the other parts still run. */
async function part<T>(what: string, errors: string[], run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run();
  } catch (error) {
    errors.push(`${what}: ${String(error)}`);
    say(`${what} failed: ${String(error)}`);
    return undefined;
  }
}

async function kafkaReference(config: BenchConfig, options: StackOptions, admin: Admin) {
  const limits = await measureKafka({
    repoRoot,
    admin,
    brokers: options.kafkaBrokers,
    topic: `${options.topicPrefix}perf`,
    records: config.kafkaRecords,
    recordSize: 512,
    log: say,
  });
  say(
    `  producer ${limits.producer.linger0.recordsPerSecond.toFixed(0)}/s (linger 0), ${limits.producer.linger20.recordsPerSecond.toFixed(0)}/s (linger 20); consumer ${limits.consumer.recordsPerSecond.toFixed(0)}/s`,
  );
  return limits;
}

async function pgbenchReference(config: BenchConfig, options: StackOptions, outDir: string) {
  const db = databaseName(options, 'pgbench');
  await withClient(options, db, (c) =>
    c.query(
      `INSERT INTO stock (sku, available) SELECT 'SKU-' || n, 1000000000 FROM generate_series(1, 1000) n`,
    ),
  );
  const pgbench = await measurePostgres({
    scriptPath: `${outDir}/pgbench-hop.sql`,
    database: db,
    pg: options.pg,
    seconds: config.pgbenchSeconds,
    clients: config.pgbenchClients,
    log: say,
  });
  say(`  pgbench: ${pgbench.map((r) => `${r.clients} clients ${r.tps.toFixed(0)} tps`).join(', ')}`);
  return pgbench;
}

async function main(argv: string[]): Promise<number> {
  const config = parseBenchArgs(argv);
  if (config === 'help') {
    process.stdout.write(`${BENCH_USAGE}\n`);
    return 0;
  }
  const startedAt = new Date();
  const runId = startedAt.toISOString().replace(/[-:]/g, '').replace(/\..*/, '').toLowerCase();
  const outDir = `${repoRoot}/reports/bench-${runId}`;
  const logDir = `${outDir}/logs`;
  await mkdir(logDir, { recursive: true });
  const options = stackOptions(runId, logDir);
  say(`report folder: reports/bench-${runId} (${config.quick ? 'quick' : 'full'} run)`);

  // Without autovacuum, deleted rows (the outbox's, the inbox's) are never reclaimed and no table
  // is ever analysed: a long run on such a server is slower for it (BENCHMARKS.md).
  const postgresVersion = await withClient(options, 'postgres', async (c) => {
    const setting = async (name: string) =>
      String((await c.query<Record<string, string>>(`SHOW ${name}`)).rows[0]?.[name]);
    const autovacuum = await setting('autovacuum');
    return `${await setting('server_version')}${autovacuum === 'on' ? '' : ` (autovacuum ${autovacuum})`}`;
  });
  const machine = describeMachine(repoRoot, postgresVersion);
  const kafka = createKafka(
    { brokers: options.kafkaBrokers.split(','), clientId: 'bench' },
    { logLevel: logLevel.ERROR },
  );
  const admin = kafka.admin();
  await admin.connect();
  const databases = [...Services.map((s) => databaseName(options, s)), databaseName(options, 'pgbench')];
  const measured: PipelineMeasurements = { steps: [], maxRssMiB: {}, rssAtReadyMiB: {} };
  const errors: string[] = [];
  let outcome: PipelineOutcome = { sustainable: 0, placed: 0 };
  let records: BenchResults['recordsPerOrder'];
  let kafkaLimits: BenchResults['kafka'];
  let pgbench: BenchResults['pgbench'];
  try {
    say('creating and migrating fresh databases');
    await recreateDatabases(options, databases);
    await Promise.all([
      ...Services.map((s) => migrate(options, s, databaseName(options, s))),
      migrate(options, 'inventory', databaseName(options, 'pgbench')),
    ]);
    if (!config.skip.has('pipeline'))
      records = await part('pipeline', errors, async () => {
        outcome = await runPipeline(config, options, outDir, admin, measured);
        return recordsPerOrder(admin, options.topicPrefix, outcome.placed);
      });
    if (!config.skip.has('kafka'))
      kafkaLimits = await part('kafka perf', errors, () => kafkaReference(config, options, admin));
    if (!config.skip.has('pgbench'))
      pgbench = await part('pgbench', errors, () => pgbenchReference(config, options, outDir));
  } finally {
    const topics = (await admin.listTopics().catch(() => [] as string[])).filter((t) =>
      t.startsWith(options.topicPrefix),
    );
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
    if (process.env.BENCH_KEEP_DATABASES !== '1')
      await dropDatabases(options, databases).catch(() => undefined);
  }

  // Each measured step's traces were read right after it (runStep); this reads those of the steps
  // Zipkin did not answer for then, now that the services have stopped and flushed their spans.
  const traced = await withHopBreakdowns(measured.steps, options.topicPrefix, say);
  const half = outcome.half && traced.steps[measured.steps.indexOf(outcome.half)];
  const results = benchResults({
    startedAt,
    quick: config.quick,
    tracing: describeTracing(),
    mailSink: describeMailSink(options),
    emails: measured.emails,
    machine,
    warmup: measured.warmup,
    steps: traced.steps,
    sustainableRate: outcome.sustainable,
    ramp: measured.ramp,
    kafkaUptimeSeconds: measured.kafkaUptimeSeconds,
    halfRate: half ?? outcome.half,
    maxRssMiB: measured.maxRssMiB,
    rssAtReadyMiB: measured.rssAtReadyMiB,
    idleCpu: measured.idle,
    idleCounts: measured.idleCounts,
    console: measured.console,
    recordsPerOrder: records,
    kafka: kafkaLimits,
    pgbench,
    ...(traced.unavailable !== undefined ? { hopsUnavailable: traced.unavailable } : {}),
    errors,
  });
  await writeFile(`${outDir}/bench.json`, `${JSON.stringify(results, null, 2)}\n`);
  const written = await writeBenchmarks(results, { repoRoot, outDir, write: config.writeBenchmarks });
  for (const line of runSummaryLines(results)) say(line);
  say(`done in ${secondsSinceStart().toFixed(0)} s: sustainable ${results.sustainableRate} orders/s`);
  for (const file of written) say(`  wrote ${file}`);
  return errors.length > 0 ? 1 : 0;
}

runMain('bench', () => main(process.argv.slice(2)));
