import { ServiceNames } from '@pipeline/contracts';
import { TOPIC_PARTITIONS } from './pipeline-services';
import { CONNECTIONS_PER_POD } from './service-manifests';

/** What differs between the two variants of infra/k8s/; everything else is the same code. */
export interface Variant {
  readonly name: 'dev' | 'prod';
  readonly kafkaBrokers: number;
  /** Replication factor and `min.insync.replicas` of every topic (and of Kafka's own topics). */
  readonly replicationFactor: number;
  readonly minInsyncReplicas: number;
  readonly kafkaStorage: string;
  readonly postgresInstances: number;
  /** Synchronous standbys that must confirm a commit; 0 is asynchronous (a single instance). */
  readonly postgresSyncStandbys: number;
  readonly postgresStorage: string;
  readonly postgresMaxConnections: number;
  /** Replicas of each service's Deployment; with KEDA, its minimum. */
  readonly serviceReplicas: number;
  /** KEDA ScaledObjects on consumer lag (maximum: the partitions of the topics consumed). */
  readonly autoscaling: boolean;
  readonly tracesSampleRatio: string;
}

/**
 * Enough connections for every pod of every service at its maximum count (each with its pool and
 * the relay's session), plus 10 for migrations and operators, rounded up to a hundred; at least
 * `floor`. Derived, so that a service added by the generator raises it.
 */
const maxConnectionsFor = (podsPerService: number, floor: number): number =>
  Math.max(floor, Math.ceil((ServiceNames.length * podsPerService * CONNECTIONS_PER_POD + 10) / 100) * 100);

export const DEV: Variant = {
  name: 'dev',
  kafkaBrokers: 1,
  replicationFactor: 1,
  minInsyncReplicas: 1,
  kafkaStorage: '10Gi',
  postgresInstances: 1,
  postgresSyncStandbys: 0,
  postgresStorage: '5Gi',
  postgresMaxConnections: maxConnectionsFor(1, 200),
  serviceReplicas: 1,
  autoscaling: false,
  tracesSampleRatio: '1.0',
};

export const PROD: Variant = {
  name: 'prod',
  kafkaBrokers: 3,
  replicationFactor: 3,
  minInsyncReplicas: 2,
  kafkaStorage: '100Gi',
  postgresInstances: 3,
  postgresSyncStandbys: 1,
  postgresStorage: '50Gi',
  // KEDA scales each service up to one pod per partition.
  postgresMaxConnections: maxConnectionsFor(TOPIC_PARTITIONS, 400),
  serviceReplicas: 2,
  autoscaling: true,
  tracesSampleRatio: '0.1',
};

export const VARIANTS: readonly Variant[] = [DEV, PROD];
