/**
 * Drives POST /orders at an offered rate and measures the pipeline end to end:
 * `node dist/tools/loadgen/main.js --help` (npm run loadgen -- --help).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Kafka, logLevel, type logCreator } from 'kafkajs';
import { parseConfig, UsageError, type LoadgenConfig } from './args';
import { checkEmails } from './email-check';
import { renderHtmlReport } from './html-report';
import { LagMonitor } from '@pipeline/load';
import { LoadRun } from './load-run';
import { ProgressLine } from './progress';
import { renderSummary, type EmailCheck, type LoadgenReport } from './report';
import { systemClock } from './scheduler';
import { TerminalWatcher } from './terminal-watcher';
import { USAGE } from './usage';
import { runMain } from '../run-main';

const stderrLogger: logCreator =
  () =>
  ({ namespace, log }) =>
    void process.stderr.write(`[kafkajs] ${namespace} ${String(log.message)}\n`);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(done: () => boolean, seconds: number): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (!done() && Date.now() < until) await sleep(200);
}

async function execute(config: LoadgenConfig): Promise<LoadgenReport> {
  // kafkajs itself, not @pipeline/messaging: its barrel loads NestJS, about 0.5 s of CPU per start.
  const kafka = new Kafka({
    brokers: [...config.kafkaBrokers],
    clientId: 'loadgen',
    connectionTimeout: 3_000,
    retry: { initialRetryTime: 300, retries: 8 },
    logLevel: logLevel.ERROR,
    logCreator: stderrLogger,
  });
  let run: LoadRun | undefined;
  const watcher = new TerminalWatcher(kafka, config.topicPrefix, (orderId, type) =>
    run?.terminal(orderId, type),
  );
  const admin = kafka.admin();
  await admin.connect();
  try {
    process.stderr.write(`loadgen: joining ${watcher.topic} as ${watcher.groupId}\n`);
    await watcher.start();
    const startedAt = new Date().toISOString();
    const load = new LoadRun(config, systemClock);
    run = load;
    const lag = new LagMonitor(admin, config.groups, config.topicPrefix, () => load.elapsedSeconds());
    const progress = new ProgressLine(() => ({
      elapsedSeconds: load.elapsedSeconds(),
      last: load.timeline.lastSecond(),
      e2eP99: load.e2e.percentile(99),
      inFlight: load.inFlight,
      outstanding: load.tracker.outstanding,
      lag: lag.latest,
    }));
    lag.start(config.lagIntervalMs);
    progress.start();
    try {
      const cpu = await load.run();
      const loadSeconds = load.elapsedSeconds();
      process.stderr.write(
        `\nloadgen: load done; draining up to ${config.drainSeconds} s for terminal events\n`,
      );
      await waitFor(() => load.tracker.outstanding === 0, config.drainSeconds);
      // Let late duplicates of the last orders arrive too.
      await sleep(1000);
      await lag.sample();
      const totals = load.tracker.totals();
      let emails: EmailCheck | undefined;
      if (config.checkEmails) {
        const check = () => checkEmails(config.maildevUrl, load.runId, totals.completed);
        emails = await check();
        for (let i = 0; i < 10 && emails.error === undefined && emails.missing > 0; i++) {
          await sleep(1000);
          emails = await check();
        }
      }
      return {
        startedAt,
        config,
        consumerGroup: watcher.groupId,
        durationSeconds: loadSeconds,
        achievedRate: totals.placed / loadSeconds,
        totals,
        latency: {
          http: load.http.summary(),
          e2e: load.e2e.summary(),
          e2eConfirmed: load.e2eByType['order.confirmed'].summary(),
          e2eCancelled: load.e2eByType['order.cancelled'].summary(),
        },
        timeline: load.timeline.points(),
        lag: { maxByGroup: lag.maxByGroup(), samples: lag.samples },
        ...(emails ? { emails } : {}),
        generator: { cpu: cpu, sendDelay: load.sendDelay.summary() },
      };
    } finally {
      progress.stop();
      await Promise.all([lag.stop(), load.close()]);
    }
  } finally {
    await watcher.stop();
    await admin.disconnect();
  }
}

async function writeReports(report: LoadgenReport, out: string): Promise<string> {
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
  const html = out.replace(/\.json$/, '') + '.html';
  await writeFile(html, renderHtmlReport(report));
  return html;
}

async function main(argv: string[]): Promise<number> {
  let config: LoadgenConfig | 'help';
  try {
    config = parseConfig(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`loadgen: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (config === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const report = await execute(config);
  const html = await writeReports(report, config.out);
  process.stdout.write(`${[...renderSummary(report), `  report: ${config.out}, ${html}`].join('\n')}\n`);
  return 0;
}

runMain('loadgen', () => main(process.argv.slice(2)));
