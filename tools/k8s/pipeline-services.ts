import { DEFAULT_TOPIC_PARTITIONS, EventConsumers, ServiceNames, deadLetterTopic } from '@pipeline/contracts';
import type { ServiceName } from '@pipeline/contracts';

export interface PipelineService {
  readonly service: ServiceName;
  /** `order-service`: the Deployment, Service, consumer group and OTEL_SERVICE_NAME. */
  readonly name: string;
  readonly port: number;
  /** Topics its consumer group reads: the saga topics of EventConsumers plus its dead-letter topic. */
  readonly consumes: readonly string[];
  /** Variables of its own config schema beyond the base one (apps/<name>/src/config.ts). */
  readonly extraEnv: Readonly<Record<string, string>>;
  /** CPU it is given in prod: BENCHMARKS.md, run of 2026-12-01, share of a core at 300 orders/s. */
  readonly prodCpuRequest: string;
}

/** The ports of tools/stack/stack-plan.ts and docker-compose.yml (the config schemas' defaults). */
const PORTS: Record<ServiceName, number> = {
  order: 3000,
  payment: 3001,
  inventory: 3002,
  email: 3003,
  analytics: 3004,
};

/** order-service took 40 % of a core at 300 orders/s, the others 11-16 %: request a bit more. */
const PROD_CPU: Record<ServiceName, string> = {
  order: '500m',
  payment: '200m',
  inventory: '200m',
  email: '200m',
  analytics: '200m',
};

/** A mail relay reachable from the cluster; replace with yours. */
const SMTP_URL = 'smtp://smtp-relay.mail:587';

export const PIPELINE_SERVICES: readonly PipelineService[] = ServiceNames.map((service): PipelineService => ({
  service,
  name: `${service}-service`,
  port: PORTS[service],
  consumes: [...new Set(EventConsumers[service].map((s) => s.topic as string)), deadLetterTopic(service)],
  extraEnv: service === 'email' ? { SMTP_URL } : {},
  prodCpuRequest: PROD_CPU[service],
}));

/** Every topic is created with this many partitions: a consumer group has at most this many busy members. */
export const TOPIC_PARTITIONS = DEFAULT_TOPIC_PARTITIONS;
