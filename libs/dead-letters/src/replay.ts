import {
  DeadLetterHeaders,
  EventHeaders,
  RECORD_TOO_LARGE,
  RELAY_STAGE,
  ReplayHeaders,
  UNDECODABLE_BATCH,
} from '@pipeline/contracts';
import { Partitioners, type IHeaders, type Kafka, type Message } from 'kafkajs';
import { FirstCopies } from './dead-letter-copies';
import { deadLetterPosition, type DeadLetterRecord } from './dead-letter-record';
import { countBy, type Count } from './dead-letter-summary';
import { chunkBySize, recordBytes } from '@pipeline/messaging';

/** Headers the dead-letter step added; replay strips them so the record is as first published. */
export const DIAGNOSTIC_HEADERS: readonly string[] = Object.values(DeadLetterHeaders);

export interface ReplayItem {
  readonly source: DeadLetterRecord;
  readonly topic: string;
  readonly message: Message;
}

export interface SkippedRecord {
  readonly source: DeadLetterRecord;
  readonly reason: string;
}

/** A later copy of a record dead-lettered more than once (dead-letter-copies.ts): not sent again. */
export interface DuplicateCopy {
  readonly source: DeadLetterRecord;
  /** The position of the copy that stands for the incident (replayed, or skipped with a reason). */
  readonly firstCopy: string;
}

export interface ReplayPlan {
  /** In dead-letter order (partition, offset), which keeps each key's order. */
  readonly items: readonly ReplayItem[];
  readonly skipped: readonly SkippedRecord[];
  readonly duplicates: readonly DuplicateCopy[];
}

export interface ReplayResult {
  readonly replayed: number;
  readonly byTopic: readonly Count[];
}

/**
 * The original headers as they came (bytes, empty and null values, repeats), without the
 * diagnostic ones. A null value is written as null (the patched kafkajs encoder writes length -1).
 */
export function replayHeaders(record: DeadLetterRecord): IHeaders {
  const headers: IHeaders = {};
  for (const [name, value] of Object.entries(record.rawHeaders)) {
    // An earlier replay's `replayed_from` is replaced, not repeated.
    if (value === undefined || DIAGNOSTIC_HEADERS.includes(name) || name === ReplayHeaders.replayedFrom)
      continue;
    // kafkajs's IHeaders type has no null; its (patched) encoder writes one as length -1.
    headers[name] = value as IHeaders[string];
  }
  headers[ReplayHeaders.replayedFrom] = deadLetterPosition(record);
  return headers;
}

const CLOUD_EVENTS_HEADERS: readonly string[] = Object.values(EventHeaders);

/**
 * Decides what goes where: a record that does not say where it came from, or kept nothing to
 * send, is skipped with the reason, never guessed. A later copy of an incident already planned
 * (here, or in an earlier call given the same `firstCopies`) is not sent again.
 */
export function planReplay(
  records: readonly DeadLetterRecord[],
  firstCopies: FirstCopies = new FirstCopies(),
): ReplayPlan {
  const items: ReplayItem[] = [];
  const skipped: SkippedRecord[] = [];
  const duplicates: DuplicateCopy[] = [];
  for (const source of records) {
    const firstCopy = firstCopies.earlierCopyOf(source);
    if (firstCopy !== undefined) {
      duplicates.push({ source, firstCopy });
    } else if (source.originalTopic === undefined) {
      skipped.push({ source, reason: `no ${DeadLetterHeaders.originalTopic} header` });
    } else if (source.originalTopic === source.topic) {
      skipped.push({ source, reason: `${DeadLetterHeaders.originalTopic} is the dead-letter topic itself` });
    } else if (source.stage === RELAY_STAGE && source.errorCode === RECORD_TOO_LARGE) {
      skipped.push({ source, reason: tooLargeReason(source) });
    } else if (source.errorCode === UNDECODABLE_BATCH) {
      skipped.push({ source, reason: undecodableReason(source) });
    } else if (
      source.value === null &&
      !CLOUD_EVENTS_HEADERS.some((name) => Object.hasOwn(source.headers, name))
    ) {
      skipped.push({ source, reason: nothingKeptReason(source) });
    } else {
      // No partition: the key picks it, as it did for the original producer and does for new events.
      const message: Message = { key: source.key, value: source.value, headers: replayHeaders(source) };
      items.push({ source, topic: source.originalTopic, message });
    }
  }
  return { items, skipped, duplicates };
}

const originalOf = (source: DeadLetterRecord): string =>
  `${source.originalTopic}/${source.originalPartition ?? '?'}/${source.originalOffset ?? '?'}`;

/** The consumer could not decode a record batch: its letter names the offsets, it holds no record. */
function undecodableReason(source: DeadLetterRecord): string {
  const last = source.originalLastOffset === undefined ? '' : `..${source.originalLastOffset}`;
  return (
    `${UNDECODABLE_BATCH}: the consumer could not decode the record batch at ${originalOf(source)}${last}, ` +
    `so nothing of it was kept to replay; its records stay in ${source.originalTopic} until its retention ends, ` +
    `for a client that can decode them (kcat -C -t ${source.originalTopic} -p ${source.originalPartition ?? '?'} ` +
    `-o ${source.originalOffset ?? '?'})`
  );
}

/**
 * No value and no CloudEvents header: no record of the original was kept. Sending it would put
 * an empty record on the original topic, which every consumer would dead-letter again.
 */
function nothingKeptReason(source: DeadLetterRecord): string {
  const code = source.errorCode === undefined ? '' : ` (${source.errorCode})`;
  return (
    `no value and no CloudEvents headers${code}: nothing of the original record was kept; ` +
    `read it at ${originalOf(source)} on the original topic while it is retained`
  );
}

/** The broker refused the original as too large for its topic: it would refuse a replay again. */
function tooLargeReason(source: DeadLetterRecord): string {
  const bytes = source.headers[DeadLetterHeaders.recordBytes] ?? '?';
  const limit = source.headers[DeadLetterHeaders.limitBytes] ?? '?';
  const omitted =
    source.headers[DeadLetterHeaders.valueOmitted] === 'true' ? ', and its value was not kept' : '';
  return (
    `${RECORD_TOO_LARGE} from the outbox relay: ${bytes} bytes, over the limit of ${limit}${omitted}; ` +
    'a replay would be refused again (publish a smaller event instead)'
  );
}

/** How many records the plan sends to each topic. */
export const replayTargets = (plan: ReplayPlan): Count[] => countBy(plan.items, (item) => item.topic);

export interface SendReplayOptions {
  /** Splits the replay into several batches only beyond this size (the broker caps a batch). */
  readonly maxBatchBytes?: number;
  /** The idempotent producer retries for ever; a command line gives up after this long. */
  readonly timeoutMs?: number;
}

/**
 * Produces the plan with the idempotent producer and acks from all in-sync replicas, in one
 * `sendBatch` unless it is very large. Fails before sending anything when a target topic is missing.
 */
export async function sendReplay(
  kafka: Kafka,
  plan: ReplayPlan,
  options: SendReplayOptions = {},
): Promise<ReplayResult> {
  const { maxBatchBytes = 512 * 1024, timeoutMs = 60_000 } = options;
  const byTopic = replayTargets(plan);
  if (plan.items.length === 0) return { replayed: 0, byTopic };
  await assertTopicsExist(
    kafka,
    byTopic.map((count) => count.value),
  );
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    // Idempotence wants unbounded retries (kafkajs warns otherwise); `timeoutMs` bounds the wait.
    retry: { retries: Number.MAX_SAFE_INTEGER },
  });
  await producer.connect();
  let sent = 0;
  try {
    for (const chunk of chunkBySize(plan.items, (item) => recordBytes(item.message), maxBatchBytes)) {
      await withTimeout(producer.sendBatch({ topicMessages: byTopicMessages(chunk), acks: -1 }), timeoutMs);
      sent += chunk.length;
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`replayed ${sent} of ${plan.items.length} records, then failed: ${message}`, {
      cause: error,
    });
  } finally {
    await producer.disconnect();
  }
  return { replayed: plan.items.length, byTopic };
}

async function assertTopicsExist(kafka: Kafka, topics: readonly string[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((topic) => !existing.has(topic));
    if (missing.length > 0) throw new Error(`cannot replay: topic(s) ${missing.join(', ')} do not exist`);
  } finally {
    await admin.disconnect();
  }
}

function byTopicMessages(items: readonly ReplayItem[]): { topic: string; messages: Message[] }[] {
  const byTopic = new Map<string, Message[]>();
  for (const item of items) {
    const messages = byTopic.get(item.topic) ?? [];
    messages.push(item.message);
    byTopic.set(item.topic, messages);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no acknowledgement within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  promise.catch(() => undefined);
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
