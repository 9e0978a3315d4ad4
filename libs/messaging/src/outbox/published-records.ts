import type { Message, RecordMetadata, TopicMessages } from 'kafkajs';
import type { OutboxPublishedRecord } from './outbox-relay.options';
import type { OutboxRow } from './outbox-table';

/**
 * Where each row of an acknowledged `sendBatch` landed. kafkajs groups a topic's messages by
 * partition keeping their order and sends each group as one record batch (`offsetDelta` 0, 1,
 * ...); the broker answers with the batch's base offset, so the i-th message of a partition is
 * at `baseOffset + i`. `topicMessages` is `toTopicMessages(rows, topicPrefix)`: per topic, the
 * rows' messages in row order. A row whose partition or base offset is unknown is left out.
 */
export function publishedRecords(
  rows: readonly OutboxRow[],
  topicMessages: readonly TopicMessages[],
  sent: readonly RecordMetadata[],
  partitionOf: (message: Message) => number | undefined,
  topicPrefix = '',
): OutboxPublishedRecord[] {
  const baseOffsets = new Map(sent.map((meta) => [`${meta.topicName}/${meta.partition}`, meta.baseOffset]));
  const messagesOf = new Map(topicMessages.map(({ topic, messages }) => [topic, messages]));
  const sentOfTopic = new Map<string, number>();
  const sentToPartition = new Map<string, bigint>();
  const records: OutboxPublishedRecord[] = [];
  for (const row of rows) {
    const topic = topicPrefix + row.topic;
    const index = sentOfTopic.get(topic) ?? 0;
    sentOfTopic.set(topic, index + 1);
    const message = messagesOf.get(topic)?.[index];
    const partition = message === undefined ? undefined : partitionOf(message);
    if (partition === undefined) continue;
    const key = `${topic}/${partition}`;
    const baseOffset = baseOffsets.get(key);
    if (baseOffset === undefined) continue;
    const delta = sentToPartition.get(key) ?? 0n;
    sentToPartition.set(key, delta + 1n);
    records.push({
      eventId: row.event_id,
      topic: row.topic,
      key: row.key,
      partition,
      offset: (BigInt(baseOffset) + delta).toString(),
    });
  }
  return records;
}
