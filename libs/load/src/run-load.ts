import { randomUUID } from 'node:crypto';
import { registerCompressionCodecs } from '@pipeline/kafka-codecs';
import { Kafka, logLevel, type logCreator } from 'kafkajs';
import { LagMonitor } from './lag-monitor';
import type { LoadConfig } from './load-config';
import type { EmailCheck, LoadReport } from './report/report';
import { judge } from './report/verdict';
import { checkEmails } from './run/email-check';
import { LoadRun } from './run/load-run';
import { systemClock } from './run/scheduler';
import { TerminalWatcher } from './run/terminal-watcher';
import type { SecondPoint } from './run/timeline';

/** What a running load looks like, once a second (loadgen's progress line, the console's page). */
export interface LoadProgress {
  readonly phase: 'load' | 'drain' | 'emails';
  readonly elapsedSeconds: number;
  /** The last complete second. */
  readonly last: SecondPoint | undefined;
  readonly offered: number;
  readonly placed: number;
  /** Placed orders that have had their terminal event. */
  readonly completed: number;
  readonly inFlight: number;
  /** Placed orders still waiting for their terminal event. */
  readonly outstanding: number;
  readonly e2eP99: number;
  /** Total lag over the sampled groups, when read. */
  readonly lag: number | undefined;
}

export interface RunLoadOptions {
  /** Ends the run at once: no further order is sent, no drain, no email check. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: LoadProgress) => void;
  /** One line per step of the run (joining, draining), for a log or stderr. */
  readonly log?: (line: string) => void;
  /** Where kafkajs's own errors go (default: dropped). */
  readonly kafkaLog?: (line: string) => void;
  /** The run's own group on `orders` is this followed by a UUID (default `loadgen-`). */
  readonly groupPrefix?: string;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> => systemClock.sleep(ms, signal);

async function waitFor(done: () => boolean, seconds: number, signal?: AbortSignal): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (!done() && Date.now() < until && !signal?.aborted) await sleep(200, signal);
}

/**
 * One load run against the pipeline: joins `orders` as a fresh group, drives POST /orders at the
 * configured arrivals, samples group lag, drains for terminal events, optionally counts emails,
 * and returns the report with its verdict. `npm run loadgen` and the console both run this.
 */
export async function runLoad(config: LoadConfig, options: RunLoadOptions = {}): Promise<LoadReport> {
  const { signal, log = () => undefined } = options;
  const kafkaLog: logCreator =
    () =>
    ({ namespace, log: entry }) =>
      options.kafkaLog?.(`[kafkajs] ${namespace} ${String(entry.message)}`);
  // kafkajs itself, not @pipeline/messaging: its barrel loads NestJS, about 0.5 s of CPU per start.
  // The codecs still: the watcher reads `orders`, which any client may have compressed.
  registerCompressionCodecs();
  const kafka = new Kafka({
    brokers: [...config.kafkaBrokers],
    clientId: 'loadgen',
    connectionTimeout: 3_000,
    retry: { initialRetryTime: 300, retries: 8 },
    logLevel: logLevel.ERROR,
    logCreator: kafkaLog,
  });
  let run: LoadRun | undefined;
  const watcher = new TerminalWatcher(
    kafka,
    config.topicPrefix,
    (orderId, type) => run?.terminal(orderId, type),
    `${options.groupPrefix ?? 'loadgen-'}${randomUUID()}`,
  );
  const admin = kafka.admin();
  await admin.connect();
  try {
    log(`loadgen: joining ${watcher.topic} as ${watcher.groupId}`);
    await watcher.start();
    const startedAt = new Date().toISOString();
    const load = new LoadRun(config, systemClock, signal);
    run = load;
    const lag = new LagMonitor(admin, config.groups, config.topicPrefix, () => load.elapsedSeconds());
    let phase: LoadProgress['phase'] = 'load';
    const progress = setInterval(() => {
      const totals = load.tracker.totals();
      options.onProgress?.({
        phase,
        elapsedSeconds: load.elapsedSeconds(),
        last: load.timeline.lastSecond(),
        offered: totals.offered,
        placed: totals.placed,
        completed: totals.completed,
        inFlight: load.inFlight,
        outstanding: load.tracker.outstanding,
        e2eP99: load.e2e.percentile(99),
        lag: lag.latest,
      });
    }, 1000);
    lag.start(config.lagIntervalMs);
    try {
      const cpu = await load.run();
      const loadSeconds = load.elapsedSeconds();
      if (!signal?.aborted) {
        phase = 'drain';
        log(`loadgen: load done; draining up to ${config.drainSeconds} s for terminal events`);
        await waitFor(() => load.tracker.outstanding === 0, config.drainSeconds, signal);
        // Let late duplicates of the last orders arrive too.
        await sleep(1000, signal);
      }
      // A stop during the drain still skipped (part of) it: its report says stopped too.
      const stopped = signal?.aborted === true;
      if (!stopped) await lag.sample();
      const counted = load.tracker.totals();
      const totals = stopped ? { ...counted, lost: 0 } : counted;
      let emails: EmailCheck | undefined;
      if (config.checkEmails && !stopped) {
        phase = 'emails';
        const check = () => checkEmails(config.maildevUrl, load.runId, totals.completed);
        emails = await check();
        for (let i = 0; i < 10 && emails.error === undefined && emails.missing > 0; i++) {
          await sleep(1000);
          emails = await check();
        }
      }
      const report: Omit<LoadReport, 'verdict'> = {
        startedAt,
        config,
        consumerGroup: watcher.groupId,
        durationSeconds: loadSeconds,
        // A run stopped while it joined may have lasted no measurable time.
        achievedRate: loadSeconds > 0 ? totals.placed / loadSeconds : 0,
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
        generator: { cpu, sendDelay: load.sendDelay.summary() },
        ...(stopped ? { stopped: { afterSeconds: loadSeconds, unfinished: counted.lost } } : {}),
      };
      return { ...report, verdict: judge(report) };
    } finally {
      clearInterval(progress);
      await Promise.all([lag.stop(), load.close()]);
    }
  } finally {
    await watcher.stop();
    await admin.disconnect();
  }
}
