/** Names the manifests share: the namespace, the operators' clusters and the Services they create. */
export const NAMESPACE = 'order-pipeline';
export const KAFKA_CLUSTER = 'pipeline';
/** Strimzi's bootstrap Service of the cluster, plain listener. */
export const KAFKA_BOOTSTRAP = `${KAFKA_CLUSTER}-kafka-bootstrap:9092`;
export const POSTGRES_CLUSTER = 'pipeline-pg';
/** CloudNativePG's read-write Service: always the current primary. */
export const POSTGRES_HOST = `${POSTGRES_CLUSTER}-rw`;
/** An OpenTelemetry collector (or Jaeger) taking OTLP/HTTP; not part of these manifests. */
export const OTLP_ENDPOINT = 'http://otel-collector.observability:4318';
export const IMAGE = 'order-pipeline:0.1.0';
export const MIGRATOR_IMAGE = 'order-pipeline-migrator:0.1.0';

export const labelsOf = (component: string, part = 'order-pipeline'): Record<string, string> => ({
  'app.kubernetes.io/name': component,
  'app.kubernetes.io/part-of': part,
});
