import {
  DeadLetterHeaders,
  EventHeaders,
  headerValue,
  readHeaders,
  type RawHeaders,
  type RecordHeaders,
} from '@pipeline/contracts';
import type { KafkaMessage } from 'kafkajs';

/** One record of a dead-letter topic, with its diagnostic headers parsed. */
export interface DeadLetterRecord {
  /** The dead-letter topic, partition and offset the record sits at. */
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  /**
   * Every header as the client decoded it: bytes, an array when a name repeats, `null` for a null
   * value (any client may write to the topic). Replay sends these back (replayHeaders).
   */
  readonly rawHeaders: RawHeaders;
  /** The same headers as text (headerValue: first value of a repeated one, null ones left out). */
  readonly headers: RecordHeaders;
  readonly eventId: string | undefined;
  readonly eventType: string | undefined;
  readonly originalTopic: string | undefined;
  readonly originalPartition: number | undefined;
  readonly originalOffset: string | undefined;
  /** The last offset of a range that starts at `originalOffset`: the letter of a batch that could not be decoded. */
  readonly originalLastOffset: string | undefined;
  /** The error message, trimmed. */
  readonly error: string | undefined;
  readonly errorClass: string | undefined;
  readonly attempts: number | undefined;
  /** `failed_at` as written; `failedAtMs` is `undefined` when it is missing or not a time. */
  readonly failedAt: string | undefined;
  readonly failedAtMs: number | undefined;
  readonly consumerGroup: string | undefined;
  /** `relay` when the outbox relay wrote it; absent for a consumer's letter. */
  readonly stage: string | undefined;
  /** A stable code of the failure (`RecordTooLarge`, `UndecodableBatch`), when the writer gave one. */
  readonly errorCode: string | undefined;
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === '' ? undefined : value.trim();

const integer = (value: string | undefined): number | undefined => {
  const parsed = value === undefined ? Number.NaN : Number(value);
  return Number.isInteger(parsed) ? parsed : undefined;
};

export function toDeadLetterRecord(
  topic: string,
  partition: number,
  message: KafkaMessage,
): DeadLetterRecord {
  const rawHeaders: RawHeaders = message.headers ?? {};
  const get = (name: string) => nonEmpty(headerValue(rawHeaders, name));
  const failedAt = get(DeadLetterHeaders.failedAt);
  const failedAtMs = failedAt === undefined ? Number.NaN : Date.parse(failedAt);
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key,
    value: message.value,
    rawHeaders,
    headers: readHeaders(rawHeaders),
    eventId: get(EventHeaders.id),
    eventType: get(EventHeaders.type),
    originalTopic: get(DeadLetterHeaders.originalTopic),
    originalPartition: integer(get(DeadLetterHeaders.originalPartition)),
    originalOffset: get(DeadLetterHeaders.originalOffset),
    originalLastOffset: get(DeadLetterHeaders.originalLastOffset),
    error: get(DeadLetterHeaders.error),
    errorClass: get(DeadLetterHeaders.errorClass),
    attempts: integer(get(DeadLetterHeaders.attempts)),
    failedAt,
    failedAtMs: Number.isNaN(failedAtMs) ? undefined : failedAtMs,
    consumerGroup: get(DeadLetterHeaders.consumerGroup),
    stage: get(DeadLetterHeaders.stage),
    errorCode: get(DeadLetterHeaders.errorCode),
  };
}

/** `<topic>/<partition>/<offset>`: where a dead-lettered record sits, as `replayed_from` carries it. */
export const deadLetterPosition = (
  record: Pick<DeadLetterRecord, 'topic' | 'partition' | 'offset'>,
): string => `${record.topic}/${record.partition}/${record.offset}`;
