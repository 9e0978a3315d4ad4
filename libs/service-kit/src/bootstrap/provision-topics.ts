import type { Admin, ITopicConfig } from 'kafkajs';
import type { TopicSpec } from '@pipeline/contracts';
import { createServedTopics } from '@pipeline/messaging';

export interface ProvisioningOptions {
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly minInsyncReplicas: number;
}

export interface ProvisioningResult {
  readonly created: string[];
  readonly existing: string[];
}

export function topicConfig(spec: TopicSpec, options: ProvisioningOptions): ITopicConfig {
  const optional = {
    'retention.ms': spec.retentionMs,
    'segment.ms': spec.segmentMs,
    'max.message.bytes': spec.maxMessageBytes,
  };
  const configEntries = [
    { name: 'cleanup.policy', value: spec.cleanupPolicy },
    { name: 'min.insync.replicas', value: String(options.minInsyncReplicas) },
    ...Object.entries(optional).flatMap(([name, value]) =>
      value === undefined ? [] : [{ name, value: String(value) }],
    ),
  ];
  return {
    topic: spec.name,
    numPartitions: options.partitions,
    replicationFactor: options.replicationFactor,
    configEntries,
  };
}

/**
 * Creates the topics that do not exist yet. Idempotent: existing topics are left
 * untouched (changing partitions of a keyed topic would break per-key ordering).
 */
export async function provisionTopics(
  admin: Admin,
  specs: readonly TopicSpec[],
  options: ProvisioningOptions,
): Promise<ProvisioningResult> {
  const existingTopics = new Set(await admin.listTopics());
  const missing = specs.filter((spec) => !existingTopics.has(spec.name));
  if (missing.length > 0) {
    await createServedTopics(
      admin,
      missing.map((spec) => topicConfig(spec, options)),
    );
  }
  return {
    created: missing.map((spec) => spec.name),
    existing: specs.filter((spec) => existingTopics.has(spec.name)).map((spec) => spec.name),
  };
}
