import type { Admin } from 'kafkajs';
import type { OutboxRelayService } from '@pipeline/outbox-relay';
import { PipelineMetrics, renderMetrics } from '@pipeline/observability';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { DatabaseClient } from '../database/database.tokens';
import { ScrapeTimeGauges } from './scrape-time-gauges';

const TOPIC = 'test.payment.dead-letter';

interface Fakes {
  backlog: () => Promise<unknown>;
  offsets: () => Promise<{ partition: number; offset: string; high: string; low: string }[]>;
}

function gauges(fakes: Fakes) {
  const calls = { backlog: 0, offsets: 0 };
  const database = {
    $queryRawUnsafe: () => {
      calls.backlog += 1;
      return fakes.backlog();
    },
  } as unknown as DatabaseClient;
  const admin = {
    fetchTopicOffsets: () => {
      calls.offsets += 1;
      return fakes.offsets();
    },
  } as unknown as Admin;
  const outbox = { relay: { publishedIds: () => [] } } as unknown as OutboxRelayService;
  const subject = new ScrapeTimeGauges(database, admin, outbox, {
    deadLetterTopic: TOPIC,
    deadLetterCacheMs: 60_000,
  });
  subject.onModuleInit();
  onTestFinished(() => subject.onModuleDestroy());
  return { subject, calls };
}

const value = async (gauge: { get(): Promise<{ values: { value: number }[] }> }) =>
  (await gauge.get()).values[0]?.value;

describe('ScrapeTimeGauges', () => {
  it('sets the outbox backlog and the dead-letter depth summed over partitions', async () => {
    gauges({
      backlog: () => Promise.resolve([{ rows: 7, oldest_age_ms: 2_500 }]),
      offsets: () =>
        Promise.resolve([
          { partition: 0, offset: '10', high: '10', low: '4' },
          { partition: 1, offset: '3', high: '3', low: '0' },
        ]),
    });
    await renderMetrics();
    expect(await value(PipelineMetrics.outboxBacklog)).toBe(7);
    expect(await value(PipelineMetrics.outboxOldestAge)).toBe(2.5);
    const depth = (await PipelineMetrics.deadLetterDepth.get()).values.find((v) => v.labels.topic === TOPIC);
    expect(depth?.value).toBe(9);
  });

  it('answers within the timeout with the last values when Postgres hangs and Kafka fails', async () => {
    PipelineMetrics.outboxBacklog.set(3);
    const { calls } = gauges({
      backlog: () => new Promise(() => undefined),
      offsets: () => Promise.reject(new Error('broker down')),
    });
    const started = Date.now();
    const text = await renderMetrics();
    await renderMetrics();
    // Each scrape waits at most 1 s for the hung query, then answers with the last values.
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(text).toContain('pipeline_outbox_backlog_events');
    expect(await value(PipelineMetrics.outboxBacklog)).toBe(3);
    // One query in flight at a time; one metadata request per cache period.
    expect(calls).toEqual({ backlog: 1, offsets: 1 });
  });
});
