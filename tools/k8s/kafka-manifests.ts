import { TopicCatalogue, type TopicSpec } from '@pipeline/contracts';
import { KAFKA_CLUSTER, NAMESPACE, labelsOf } from './cluster-names';
import { TOPIC_PARTITIONS } from './pipeline-services';
import type { Variant } from './variants';

/** Strimzi 1.x serves only the v1 API (v1beta2 was removed in 1.0.0). */
export const STRIMZI_API = 'kafka.strimzi.io/v1';
/** The broker the repository runs everywhere else (infra/kafka/pom.xml, docker-compose.yml). */
export const KAFKA_VERSION = '4.1.2';

const clusterLabel = { 'strimzi.io/cluster': KAFKA_CLUSTER };

export function kafkaCluster(variant: Variant): object[] {
  const nodePool = {
    apiVersion: STRIMZI_API,
    kind: 'KafkaNodePool',
    metadata: { name: 'dual-role', namespace: NAMESPACE, labels: clusterLabel },
    spec: {
      // KRaft combined mode, as locally: every node is a controller (quorum of 1 or 3) and a broker.
      replicas: variant.kafkaBrokers,
      roles: ['controller', 'broker'],
      storage: {
        type: 'jbod',
        volumes: [
          {
            id: 0,
            type: 'persistent-claim',
            size: variant.kafkaStorage,
            deleteClaim: false,
            kraftMetadata: 'shared',
          },
        ],
      },
      resources: { requests: { cpu: '500m', memory: '2Gi' }, limits: { memory: '2Gi' } },
    },
  };
  const kafka = {
    apiVersion: STRIMZI_API,
    kind: 'Kafka',
    metadata: { name: KAFKA_CLUSTER, namespace: NAMESPACE, labels: labelsOf('kafka') },
    spec: {
      kafka: {
        version: KAFKA_VERSION,
        listeners: [{ name: 'plain', port: 9092, type: 'internal', tls: false }],
        config: {
          'auto.create.topics.enable': false,
          'default.replication.factor': variant.replicationFactor,
          'min.insync.replicas': variant.minInsyncReplicas,
          'offsets.topic.replication.factor': variant.replicationFactor,
          'transaction.state.log.replication.factor': variant.replicationFactor,
          'transaction.state.log.min.isr': variant.minInsyncReplicas,
        },
      },
      // The Topic Operator reconciles the KafkaTopic resources below; the services create none.
      entityOperator: { topicOperator: {} },
    },
  };
  return [nodePool, kafka];
}

/** `inventory.stock` → `inventory.stock`; `_` is not allowed in a resource name. */
const resourceNameOf = (topic: string): string => topic.toLowerCase().replace(/[^a-z0-9.-]/g, '-');

export function topicConfigOf(spec: TopicSpec, variant: Variant): Record<string, string | number> {
  return {
    'cleanup.policy': spec.cleanupPolicy,
    'min.insync.replicas': variant.minInsyncReplicas,
    ...(spec.retentionMs === undefined ? {} : { 'retention.ms': spec.retentionMs }),
    ...(spec.segmentMs === undefined ? {} : { 'segment.ms': spec.segmentMs }),
    ...(spec.maxMessageBytes === undefined ? {} : { 'max.message.bytes': spec.maxMessageBytes }),
  };
}

/** One KafkaTopic per topic of the contracts, with the settings start-up provisioning applies. */
export function kafkaTopics(variant: Variant): object[] {
  return TopicCatalogue.map((spec) => ({
    apiVersion: STRIMZI_API,
    kind: 'KafkaTopic',
    metadata: { name: resourceNameOf(spec.name), namespace: NAMESPACE, labels: clusterLabel },
    spec: {
      topicName: spec.name,
      partitions: TOPIC_PARTITIONS,
      replicas: variant.replicationFactor,
      config: topicConfigOf(spec, variant),
    },
  }));
}
