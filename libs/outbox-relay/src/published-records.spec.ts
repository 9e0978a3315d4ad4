import type { Message, RecordMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { toTopicMessages, type OutboxRow } from './outbox-table';
import { PendingPublished, publishedRecords } from './published-records';

const row = (id: number, topic: string, key: string | null): OutboxRow => ({
  id: String(id),
  event_id: `event-${id}`,
  topic,
  key,
  type: 'test.happened',
  payload: '{}',
  headers: {},
});

const meta = (topicName: string, partition: number, baseOffset?: string): RecordMetadata => ({
  topicName,
  partition,
  errorCode: 0,
  ...(baseOffset === undefined ? {} : { baseOffset }),
});

/** A stand-in partitioner: the key's first letter decides (a → 0, b → 1). */
const byKey = (message: Message): number | undefined =>
  message.key === 'a' ? 0 : message.key === 'b' ? 1 : undefined;

describe('publishedRecords', () => {
  const rows = [
    row(1, 'orders', 'a'),
    row(2, 'payments', 'a'),
    row(3, 'orders', 'b'),
    row(4, 'orders', 'a'),
    row(5, 'payments', 'b'),
    row(6, 'orders', 'a'),
  ];

  it('numbers each partition’s messages from its base offset, in row order, without the prefix', () => {
    const topicMessages = toTopicMessages(rows, 'test.x.');
    const sent = [
      meta('test.x.orders', 0, '9007199254740993'),
      meta('test.x.orders', 1, '7'),
      meta('test.x.payments', 0, '0'),
      meta('test.x.payments', 1, '41'),
    ];
    expect(publishedRecords(rows, topicMessages, sent, byKey, 'test.x.')).toEqual([
      { eventId: 'event-1', topic: 'orders', key: 'a', partition: 0, offset: '9007199254740993' },
      { eventId: 'event-2', topic: 'payments', key: 'a', partition: 0, offset: '0' },
      { eventId: 'event-3', topic: 'orders', key: 'b', partition: 1, offset: '7' },
      { eventId: 'event-4', topic: 'orders', key: 'a', partition: 0, offset: '9007199254740994' },
      { eventId: 'event-5', topic: 'payments', key: 'b', partition: 1, offset: '41' },
      { eventId: 'event-6', topic: 'orders', key: 'a', partition: 0, offset: '9007199254740995' },
    ]);
  });

  it('leaves out rows whose partition or base offset was not reported', () => {
    const some = [
      row(1, 'orders', 'a'),
      row(2, 'orders', null),
      row(3, 'orders', 'b'),
      row(4, 'orders', 'a'),
    ];
    const sent = [meta('orders', 0, '3'), meta('orders', 1)];
    expect(
      publishedRecords(some, toTopicMessages(some), sent, byKey).map((r) => [r.eventId, r.offset]),
    ).toEqual([
      ['event-1', '3'],
      ['event-4', '4'],
    ]);
  });
});

describe('PendingPublished', () => {
  const record = (n: number) => ({
    eventId: `e${n}`,
    topic: 'orders',
    key: 'k',
    partition: 0,
    offset: String(n),
  });

  it('is due once the oldest pending record has waited the interval, and reports everything since', () => {
    const pending = new PendingPublished(1_000);
    expect(pending.dueIn(0)).toBeUndefined();
    pending.add(2, [record(1), record(2)], 12, 100);
    pending.add(1, [record(3)], 30, 600);
    expect(pending.dueIn(700)).toBe(400);
    expect(pending.dueIn(1_100)).toBe(0);
    expect(pending.take()).toEqual({ size: 3, latencyMs: 30, records: [record(1), record(2), record(3)] });
    expect(pending.dueIn(1_200)).toBeUndefined();
    pending.add(1, [record(4)], 5, 1_300);
    expect(pending.dueIn(1_300)).toBe(1_000);
  });

  it('is due at once with maxRecords pending', () => {
    const pending = new PendingPublished(1_000, 2);
    pending.add(2, [record(1), record(2)], 1, 0);
    expect(pending.dueIn(0)).toBe(0);
  });
});
