import { EXPERIMENTS } from '@pipeline/experiments';
import { createKafka } from '@pipeline/messaging';
import { logLevel } from 'kafkajs';
import { buildConsole } from './app';
import { loadConsoleConfig } from './config';
import { ExperimentRuns } from './experiments/experiment-runs';
import { FlowSampler } from './flow/flow-sampler';
import { OrderFeed } from './flow/order-feed';
import { OrderFlowCounter } from './flow/order-flow-counter';
import { OrderStore } from './flow/order-store';
import { ServiceMetrics } from './flow/service-metrics';
import { Access } from './http/access';
import { OrderApi } from './http/order-api';

async function main(): Promise<void> {
  const config = loadConsoleConfig();
  const kafka = createKafka(
    { brokers: config.kafka.brokers, clientId: 'console' },
    { logLevel: logLevel.ERROR },
  );
  const admin = kafka.admin();
  await admin.connect();
  const store = new OrderStore({
    maxOrders: config.maxOrders,
    maxEventsPerOrder: config.maxEventsPerOrder,
  });
  // The experiments' own client, silent: a rebalance they cause on purpose logs kafkajs ERROR
  // lines; what went wrong reaches the page as the run's verdict instead.
  const experimentKafka = createKafka(
    { brokers: config.kafka.brokers, clientId: 'console-experiments' },
    { logLevel: logLevel.NOTHING },
  );
  const experiments = new ExperimentRuns(EXPERIMENTS, {
    kafka: experimentKafka,
    brokers: config.kafka.brokers,
  });
  const counter = new OrderFlowCounter(Date.now());
  store.tap((event, entry) => counter.record(event, entry.placedAt));
  const metrics = new ServiceMetrics(config.services);
  // Logged at debug: a missing topic or an unreachable broker shows as "–" on the picture.
  let logSampleError = (_error: unknown): void => undefined;
  const sampler = new FlowSampler(
    admin,
    metrics,
    counter,
    {
      prefix: config.kafka.topicPrefix,
      groups: config.groups,
      intervalMs: config.sampleIntervalMs,
      historyPoints: config.historyPoints,
    },
    (error) => logSampleError(error),
  );
  const deps = {
    config,
    access: new Access(config.token),
    kafka,
    admin,
    store,
    metrics,
    sampler,
    orderApi: new OrderApi(config.services.order[0]!),
    experiments,
  };
  const app = await buildConsole(deps);
  logSampleError = (error) => app.log.debug({ err: error }, 'flow sample incomplete');
  const feed = new OrderFeed(
    kafka,
    store,
    { prefix: config.kafka.topicPrefix, group: config.kafka.group, historyMs: config.historyMs },
    {
      warn: (message) => app.log.warn(message),
      info: (message) => app.log.info(message),
    },
  );
  await app.listen({ port: config.port, host: config.host });
  sampler.start();
  // In the background: the pages work while the live flow waits for its topics.
  const following = feed.startWhenReady().catch((error: unknown) => {
    app.log.error({ err: error }, 'the live flow stopped: restart the console');
  });
  app.log.info(
    `console on http://${config.host}:${config.port} (${config.token === undefined ? 'read-only: no CONSOLE_TOKEN' : 'actions enabled with CONSOLE_TOKEN'})`,
  );

  let stopping = false;
  // Each step is logged if it fails and the next still runs: a stop never ends half-way.
  const step = async (what: string, action: () => Promise<unknown> | void) => {
    try {
      await action();
    } catch (error) {
      app.log.error({ err: error }, `stopping: ${what} failed`);
    }
  };
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info(`${signal}: stopping`);
    await step('the sampler', () => sampler.stop());
    // Closing the server aborts a running load run and waits for it (the Load page's onClose).
    await step('the HTTP server', () => app.close());
    // A running experiment is aborted; its cleanup (deleting its topics and groups) is awaited.
    await step('the experiments', () => experiments.close());
    store.close();
    await step('the live flow', async () => {
      await feed.stop();
      await following;
    });
    await step('the admin client', () => admin.disconnect());
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `console failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
