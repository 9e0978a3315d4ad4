import type { Admin, Kafka } from 'kafkajs';
import { waitFor } from '../support/abortable';
import type { LogRecord } from './compaction-criterion';

/**
 * Every record of a one-partition topic, from the start of the log to its current end. kafkajs
 * reads only through a group: `groupId` never commits (autoCommit off), so every read starts over
 * at the beginning, and the experiment deletes the group at the end.
 */
export async function readLog(
  kafka: Kafka,
  admin: Admin,
  topic: string,
  groupId: string,
  signal: AbortSignal,
): Promise<LogRecord[]> {
  const [end] = await admin.fetchTopicOffsets(topic);
  const high = Number(end?.high ?? 0);
  const records: LogRecord[] = [];
  if (high === 0 || Number(end?.low) >= high) return records;
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
  try {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    let last = -1;
    await consumer.run({
      autoCommit: false,
      eachMessage: ({ message }) => {
        records.push({
          offset: message.offset,
          key: message.key?.toString() ?? '',
          value: message.value === null ? null : message.value.toString(),
        });
        last = Number(message.offset);
        return Promise.resolve();
      },
    });
    // The last offset of a log is never compacted away (it is in the active segment).
    await waitFor(`reading ${topic} up to offset ${high}`, () => (last + 1 >= high ? true : undefined), {
      signal,
      timeoutMs: 20_000,
      intervalMs: 20,
    });
  } finally {
    await consumer.disconnect();
  }
  return records;
}
