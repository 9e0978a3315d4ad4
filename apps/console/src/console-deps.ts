import type { Admin, Kafka } from 'kafkajs';
import type { ConsoleConfig } from './config';
import type { ExperimentRuns } from './experiments/experiment-runs';
import type { FlowSampler } from './flow/flow-sampler';
import type { OrderStore } from './flow/order-store';
import type { ServiceMetrics } from './flow/service-metrics';
import type { Access } from './http/access';
import type { OrderApi } from './http/order-api';

/** What the pages read from and act on: built once in main.ts. */
export interface ConsoleDeps {
  readonly config: ConsoleConfig;
  readonly access: Access;
  readonly kafka: Kafka;
  /** One connected admin client, shared by the topic and group pages. */
  readonly admin: Admin;
  readonly store: OrderStore;
  readonly metrics: ServiceMetrics;
  /** The background sampler the flow page's picture, services table and charts read. */
  readonly sampler: FlowSampler;
  readonly orderApi: OrderApi;
  /** The Experiments page's runs: one at a time, the last result of each. */
  readonly experiments: ExperimentRuns;
}
