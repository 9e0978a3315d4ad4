import type { Message, RecordMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { toTopicMessages, type OutboxRow } from './outbox-table';
import { publishedRecords } from './published-records';

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
