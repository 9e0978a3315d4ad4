// The inbox must remember an event for as long as Kafka can still hold its record: otherwise a
// reset to earliest (or a new member reading history) reaches records whose inbox rows were
// pruned and applies them again. Kafka deletes whole segments, once the newest record in one is
// past retention.ms, so a record can outlive retention.ms by up to segment.ms (plus the broker's
// retention check). This reads what the broker actually applied to provisioned topics.
import { ConfigResourceTypes, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventConsumers, TopicCatalogue, type TopicSpec } from '@pipeline/contracts';
import { DEFAULT_INBOX_RETENTION_MS, provisionTopics } from '@pipeline/service-kit';
import { testKafka, uniqueName } from '../support/kafka';

/** Kafka's `log.retention.check.interval.ms` default. */
const RETENTION_CHECK_MS = 5 * 60 * 1000;

describe('inbox retention against the log', () => {
  const prefix = `${uniqueName('inbox-covers')}.`;
  const consumed = new Set<string>(
    Object.values(EventConsumers)
      .flat()
      .map((subscription) => subscription.topic),
  );
  const specs: TopicSpec[] = TopicCatalogue.filter(
    (spec) => consumed.has(spec.name) && spec.cleanupPolicy === 'delete',
  ).map((spec) => ({ ...spec, name: prefix + spec.name }));
  let admin: Admin;

  beforeAll(async () => {
    admin = testKafka().admin();
    await admin.connect();
    await provisionTopics(admin, specs, { partitions: 1, replicationFactor: 1, minInsyncReplicas: 1 });
  });

  afterAll(async () => {
    await admin?.deleteTopics({ topics: specs.map((spec) => spec.name) }).catch(() => undefined);
    await admin?.disconnect();
  });

  it('keeps inbox rows at least as long as a consumed topic can hold a record', async () => {
    expect(specs.length).toBeGreaterThanOrEqual(3);
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: specs.map((spec) => ({
        type: ConfigResourceTypes.TOPIC,
        name: spec.name,
        configNames: ['retention.ms', 'segment.ms'],
      })),
    });
    for (const resource of described.resources) {
      const value = (name: string) =>
        Number(resource.configEntries.find((entry) => entry.configName === name)?.configValue);
      const oldestRecordMs = value('retention.ms') + value('segment.ms') + RETENTION_CHECK_MS;
      expect(Number.isFinite(oldestRecordMs), `${resource.resourceName} has both settings`).toBe(true);
      expect(DEFAULT_INBOX_RETENTION_MS, resource.resourceName).toBeGreaterThanOrEqual(oldestRecordMs);
    }
  });
});
