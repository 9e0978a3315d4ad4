import { toDeadLetterRecord } from '@pipeline/dead-letters';
import type { Kafka, KafkaMessage, Message, ProducerBatch } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { Redrive } from './dead-letter-redrive';

/** What sendReplay asks of a client: the topics that exist, and a producer; every send is kept. */
function fakeKafka(topics: readonly string[]) {
  const sent: { topic: string; message: Message }[] = [];
  const kafka = {
    admin: () => ({
      connect: () => Promise.resolve(),
      disconnect: () => Promise.resolve(),
      listTopics: () => Promise.resolve([...topics]),
    }),
    producer: () => ({
      connect: () => Promise.resolve(),
      disconnect: () => Promise.resolve(),
      sendBatch: ({ topicMessages = [] }: ProducerBatch) => {
        for (const { topic, messages } of topicMessages)
          for (const message of messages) sent.push({ topic, message });
        return Promise.resolve([]);
      },
    }),
  } as unknown as Kafka;
  return { kafka, sent };
}

const letter = (
  partition: number,
  offset: number,
  originalOffset: string,
  headers = {},
  value: Buffer | null = Buffer.from('{}'),
) => {
  const message = {
    key: Buffer.from('order-1'),
    value,
    timestamp: '0',
    attributes: 0,
    offset: String(offset),
    headers: {
      ce_id: `event-${originalOffset}`,
      original_topic: 'orders',
      original_partition: '0',
      original_offset: originalOffset,
      consumer_group: 'payment-service',
      ...headers,
    },
  } as unknown as KafkaMessage;
  return {
    record: toDeadLetterRecord('payment.dead-letter', partition, message),
    timestampMs: 0,
    bytes: 100,
  };
};

describe('a redrive', () => {
  it('sends a dead letter once however many copies it meets, a page or more apart', async () => {
    const { kafka, sent } = fakeKafka(['orders']);
    const redrive = new Redrive(kafka, {}, { size: 2, maxBytes: 1_000_000 });
    // Read in dead-letter order, flushed every two records: the copy at 0/5 comes two flushes later.
    for (const read of [letter(0, 1, '17'), letter(0, 2, '18'), letter(0, 3, '19'), letter(0, 5, '17')])
      await redrive.add(read);
    const result = await redrive.finish();
    expect(sent.map(({ message }) => String(message.headers?.replayed_from))).toEqual([
      'payment.dead-letter/0/1',
      'payment.dead-letter/0/2',
      'payment.dead-letter/0/3',
    ]);
    expect(result).toMatchObject({
      replayed: 3,
      duplicates: [{ position: 'payment.dead-letter/0/5', firstCopy: 'payment.dead-letter/0/1' }],
      skipped: [],
    });
    expect(result.positions).toHaveLength(4);
  });

  it('sends the records of a page newest first in dead-letter order, each dead letter once', async () => {
    const { kafka, sent } = fakeKafka(['orders']);
    const redrive = new Redrive(kafka, {}, { size: 10, maxBytes: 1_000_000 });
    await redrive.addAll([letter(1, 9, '17'), letter(0, 4, '18'), letter(1, 2, '17')].map((r) => r.record));
    const result = await redrive.finish();
    expect(sent.map(({ message }) => String(message.headers?.replayed_from))).toEqual([
      'payment.dead-letter/0/4',
      'payment.dead-letter/1/2',
    ]);
    expect(result.duplicates).toEqual([
      { position: 'payment.dead-letter/1/9', firstCopy: 'payment.dead-letter/1/2' },
    ]);
  });

  it('sends a record with its null header values as they came, and skips one that kept nothing', async () => {
    const { kafka, sent } = fakeKafka(['orders']);
    const redrive = new Redrive(kafka, {}, { size: 10, maxBytes: 1_000_000 });
    await redrive.add(letter(0, 1, '30', { 'x-null': null, 'x-repeated': ['a', null] }));
    await redrive.add(letter(0, 2, '31', { ce_id: null, error_code: 'UndecodableBatch' }, null));
    const result = await redrive.finish();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.message.headers).toMatchObject({ 'x-repeated': ['a', null], 'x-null': null });
    expect(result.skipped).toEqual([
      {
        position: 'payment.dead-letter/0/2',
        reason: expect.stringMatching(
          /^UndecodableBatch: the consumer could not decode the record batch at orders\/0\/31,/,
        ) as string,
      },
    ]);
  });
});
