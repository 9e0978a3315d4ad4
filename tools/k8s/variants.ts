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

export const DEV: Variant = {
  name: 'dev',
  kafkaBrokers: 1,
  replicationFactor: 1,
  minInsyncReplicas: 1,
  kafkaStorage: '10Gi',
  postgresInstances: 1,
  postgresSyncStandbys: 0,
  postgresStorage: '5Gi',
  postgresMaxConnections: 200,
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
  postgresMaxConnections: 400,
  serviceReplicas: 2,
  autoscaling: true,
  tracesSampleRatio: '0.1',
};

export const VARIANTS: readonly Variant[] = [DEV, PROD];
