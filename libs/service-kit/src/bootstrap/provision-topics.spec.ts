import { describe, expect, it } from 'vitest';
import { deadLetterTopic, TopicCatalogue, type TopicSpec } from '@pipeline/contracts';
import { topicConfig } from './provision-topics';

const options = { partitions: 6, replicationFactor: 3, minInsyncReplicas: 2 };

describe('topicConfig', () => {
  it('applies partitions, replication and min.insync.replicas from config', () => {
    const spec: TopicSpec = {
      name: 'orders',
      key: 'order id',
      cleanupPolicy: 'delete',
      retentionMs: 1000,
      description: '',
    };
    expect(topicConfig(spec, options)).toEqual({
      topic: 'orders',
      numPartitions: 6,
      replicationFactor: 3,
      configEntries: [
        { name: 'cleanup.policy', value: 'delete' },
        { name: 'min.insync.replicas', value: '2' },
        { name: 'retention.ms', value: '1000' },
      ],
    });
  });

  it('keeps the broker default retention when a topic declares none', () => {
    const spec: TopicSpec = {
      name: 'inventory.stock',
      key: 'SKU',
      cleanupPolicy: 'compact',
      description: '',
    };
    expect(topicConfig(spec, options).configEntries).toEqual([
      { name: 'cleanup.policy', value: 'compact' },
      { name: 'min.insync.replicas', value: '2' },
    ]);
  });

  it('lets a dead-letter topic hold any record its source accepted, plus the diagnostic headers', () => {
    const spec = TopicCatalogue.find((candidate) => candidate.name === deadLetterTopic('email'));
    expect(topicConfig(spec!, options).configEntries).toContainEqual({
      name: 'max.message.bytes',
      value: String(2 * 1024 * 1024),
    });
  });
});
