import {
  EventHeaders,
  OrderPlacedPayloadSchema,
  ReplayHeaders,
  decodeEnvelope,
  headerValue,
} from '@pipeline/contracts';
import { planReplay, sendReplay, toDeadLetterRecord, type DeadLetterRecord } from '@pipeline/dead-letters';
import { DEFAULT_RETRY } from '@pipeline/messaging';
import { createServiceLogger } from '@pipeline/observability';
import type { KafkaMessage } from 'kafkajs';
import type { Evidence, Experiment, ExperimentContext, ExperimentVerdict } from '../experiment';
import { orderPlacedRecord } from '../support/order-records';
import { withLabResources, type LabResources } from '../support/lab-resources';
import { waitFor } from '../support/abortable';
import { attemptsTable, deadLetterHeadersTable, deadLetterProblems } from './dead-letters-evidence';
import { startRetryingConsumer, type FailedAttempt } from './retrying-consumer';

/** The SKU the broken handler cannot price: every attempt on its order throws. */
const BROKEN_SKU = 'MUG-CRACKED';

export const deadLettersExperiment: Experiment = {
  id: 'dead-letters',
  title: 'Dead letters and replay',
  description:
    'A record the handler cannot process must neither block its partition nor be lost: it is retried ' +
    'with backoff, then parked on a dead-letter topic with diagnostic headers, and replayed once the handler is fixed.',
  criterion:
    'A handler that always throws on one record: 3 attempts, then the record is on the dead-letter topic with ' +
    'original_topic, original_offset and error; the DLT logger writes a WARN line; the next record on the partition ' +
    'is processed and the committed offset is past the poison record; replayed after the fix, it is processed.',
  availability: () => Promise.resolve({ available: true }),
  run: (context) => withLabResources(context, (lab) => deadLetters(context, lab)),
};

async function deadLetters(context: ExperimentContext, lab: LabResources): Promise<ExperimentVerdict> {
  const { signal } = context;
  const [topic, dlt] = await lab.createTopics([{ name: 'orders' }, { name: 'orders.dead-letter' }]);
  if (topic === undefined || dlt === undefined) throw new Error('topics not created');
  const groupId = lab.name('handler');
  context.step(`Created ${topic} and its dead-letter topic ${dlt} (1 partition each); group ${groupId}.`);

  const producer = context.kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  lab.onCleanup(() => producer.disconnect());
  const poison = orderPlacedRecord(topic, 'customer-poison', new Date(), BROKEN_SKU);
  const healthy = orderPlacedRecord(topic, 'customer-healthy', new Date());
  const [sent] = await producer.send({ topic, acks: -1, messages: [poison.message, healthy.message] });
  const poisonOffset = sent?.baseOffset ?? '0';
  const healthyOffset = (BigInt(poisonOffset) + 1n).toString();
  context.step(
    `Published order ${poison.orderId} (SKU ${BROKEN_SKU}) at offset ${poisonOffset}, then a healthy order at ${healthyOffset}.`,
  );

  let fixed = false;
  const attempts: FailedAttempt[] = [];
  const processed = new Map<string, KafkaMessage>();
  let deadLetter: DeadLetterRecord | undefined;
  const warnLines: string[] = [];
  const logger = createServiceLogger({
    service: 'experiments',
    level: 'log',
    json: true,
    destination: { write: (line: string) => void warnLines.push(line.trim()) },
  });
  const committedBefore = await committedOffset(lab, groupId, topic);
  const consumer = await startRetryingConsumer(context.kafka, {
    groupId,
    topic,
    deadLetterTopic: dlt,
    retry: DEFAULT_RETRY,
    signal,
    // The context a service's consumer logs under, so the line reads as it would in production.
    logger: {
      log: (m: unknown) => logger.log(m, 'KafkaEventServer'),
      warn: (m: unknown) => logger.warn(m, 'KafkaEventServer'),
      error: (m: unknown) => logger.error(m, undefined, 'KafkaEventServer'),
    },
    handler: () => (fixed ? priceOrder : brokenPriceOrder),
    onFailedAttempt: (attempt) => {
      attempts.push(attempt);
      context.step(
        `Attempt ${attempt.attempt} at offset ${attempt.offset} failed (${attempt.errorClass}): ${attempt.error}` +
          (attempt.backoffMs === undefined
            ? '; dead-lettering it.'
            : `; retrying in ${attempt.backoffMs} ms.`),
      );
    },
    onProcessed: (message) => {
      processed.set(message.offset, message);
      context.step(`The ${fixed ? 'fixed handler' : 'handler'} processed offset ${message.offset}.`);
    },
    onDeadLettered: (message) =>
      context.step(`Offset ${message.offset} produced to ${dlt}; its offset is committed.`),
    onDeadLetterRead: (partition, message) => {
      deadLetter = toDeadLetterRecord(dlt, partition, message);
    },
  });
  lab.onCleanup(() => consumer.stop());
  context.step(
    `Consumer started (${DEFAULT_RETRY.attempts} attempts, backoff from ${DEFAULT_RETRY.initialBackoffMs} ms).`,
  );

  const letter = await waitFor('the dead letter to be read back and logged', () => deadLetter, { signal });
  await waitFor(`offset ${healthyOffset} to be processed`, () => processed.get(healthyOffset), { signal });
  const committedAfter = await waitFor(
    'the committed offset to pass the healthy record',
    async () => {
      const offset = await committedOffset(lab, groupId, topic);
      return BigInt(offset) > BigInt(healthyOffset) ? offset : undefined;
    },
    { signal },
  );
  const warn = warnLines.filter((line) => line.includes('"level":"warn"'));
  context.step('The dead letter and its headers:', deadLetterHeadersTable(letter));
  context.step('The DLT logger wrote:', { kind: 'log', caption: 'WARN line of logDeadLetter', lines: warn });
  context.step(
    `The partition moved on: committed offset ${committedAfter}, past the poison record at ${poisonOffset}.`,
  );

  fixed = true;
  const plan = planReplay([letter]);
  const result = await sendReplay(context.kafka, plan, { timeoutMs: 15_000 });
  context.step(
    `Handler fixed; replayed ${result.replayed} record from ${dlt} onto ${plan.items[0]?.topic ?? '?'} (planReplay + sendReplay, as npm run dlt -- replay).`,
  );
  const replayed = await waitFor(
    'the replayed record to be processed',
    () =>
      [...processed.values()].find((m) => headerValue(m.headers, ReplayHeaders.replayedFrom) !== undefined),
    { signal },
  );

  const facts = {
    topic,
    poisonOffset,
    attempts,
    maxAttempts: DEFAULT_RETRY.attempts,
    deadLetter: letter,
    warnLines: warn,
    nextProcessedOffset: healthyOffset,
    committedAfter,
    replayProcessedOffset: replayed.offset,
  };
  const problems = deadLetterProblems(facts);
  const offsets: Evidence = {
    kind: 'values',
    caption: 'Offsets',
    entries: [
      ['poison record', `${topic}/0@${poisonOffset}`],
      ['next record, processed', `${topic}/0@${healthyOffset}`],
      [
        'committed before the consumer started',
        committedBefore === '-1' ? 'none (new group)' : committedBefore,
      ],
      ['committed after the dead letter', committedAfter],
      ['replayed record, processed by the fixed handler', `${topic}/0@${replayed.offset}`],
      ['replayed_from', headerValue(replayed.headers, ReplayHeaders.replayedFrom) ?? '-'],
      ['replay ce_id (same event)', headerValue(replayed.headers, EventHeaders.id) ?? '-'],
    ],
  };
  return {
    passed: problems.length === 0,
    summary:
      problems.length === 0
        ? `${DEFAULT_RETRY.attempts} attempts, then dead-lettered with its headers and logged at WARN; the partition moved on; the replay was processed by the fixed handler.`
        : problems.join('; '),
    evidence: [
      attemptsTable(attempts),
      deadLetterHeadersTable(letter),
      { kind: 'log', caption: 'WARN line of logDeadLetter', lines: warn },
      offsets,
    ],
  };
}

/** Decodes the record as a service does (envelope, then payload schema). */
function orderOf(message: KafkaMessage) {
  const envelope = decodeEnvelope(message.value, message.headers);
  if (!envelope.ok) throw new TypeError(envelope.reason);
  return OrderPlacedPayloadSchema.parse(envelope.payload);
}

/** The bug: one SKU is missing from its price list, so every attempt on that order throws. */
function brokenPriceOrder(message: KafkaMessage): Promise<void> {
  const order = orderOf(message);
  if (order.items.some((item) => item.sku === BROKEN_SKU))
    return Promise.reject(
      new Error(`price list has no entry for SKU ${BROKEN_SKU} (order ${order.orderId})`),
    );
  return Promise.resolve();
}

function priceOrder(message: KafkaMessage): Promise<void> {
  orderOf(message);
  return Promise.resolve();
}

async function committedOffset(lab: LabResources, groupId: string, topic: string): Promise<string> {
  const admin = await lab.connectedAdmin();
  const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return offsets?.partitions.find((p) => p.partition === 0)?.offset ?? '-1';
}
