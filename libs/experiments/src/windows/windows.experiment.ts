import {
  OrderPlacedPayloadSchema,
  WINDOW_MS,
  windowOf,
  type LateEvent,
  type OrderCount,
  decodeEnvelope,
} from '@pipeline/contracts';
import type { KafkaMessage } from 'kafkajs';
import type { Evidence, Experiment, ExperimentContext, ExperimentVerdict } from '../experiment';
import { withLabResources, type LabResources } from '../support/lab-resources';
import { waitFor } from '../support/abortable';
import { orderPlacedRecord } from '../support/order-records';
import { WindowState } from './window-state';
import { lateTable, windowPhases, windowProblems, windowTable, type Phase } from './windows-scenario';

/** analytics-service's default ANALYTICS_GRACE_MS: how long a window stays open after it ends. */
const GRACE_MS = 60_000;

export const windowsExperiment: Experiment = {
  id: 'windows',
  title: 'Tumbling windows of event time',
  description:
    'analytics-service counts orders per customer in 5-minute windows of the time an event happened (ce_time), ' +
    'not the time it arrived: an old event goes to its own window, and a window that closed too long ago is final.',
  criterion:
    'Orders for customer A ×3 and B ×2 within 5 minutes give A:3, B:2; an event with an old timestamp lands in its ' +
    'own (earlier) window; a new window starts from zero.',
  availability: () => Promise.resolve({ available: true }),
  run: (context) => withLabResources(context, (lab) => runWindows(context, lab)),
};

interface Consumed {
  readonly partition: number;
  readonly message: KafkaMessage;
}

async function runWindows(context: ExperimentContext, lab: LabResources): Promise<ExperimentVerdict> {
  const { signal } = context;
  // One partition: lateness is judged against the partition's highest event time so far.
  const [topic] = await lab.createTopics([{ name: 'orders' }]);
  if (topic === undefined) throw new Error('topic not created');
  const producer = context.kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  lab.onCleanup(() => producer.disconnect());
  const consumed: Consumed[] = [];
  const seen = new Set<string>();
  const consumer = context.kafka.consumer({ groupId: lab.name('analytics'), maxWaitTimeInMs: 200 });
  lab.onCleanup(() => consumer.disconnect());
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: ({ partition, message }) => {
      // At least once: a rebalance (a slow machine missing a heartbeat) can deliver a record
      // again; each offset is taken once, as analytics-service's inbox would.
      if (!seen.has(message.offset)) {
        seen.add(message.offset);
        consumed.push({ partition, message });
      }
      return Promise.resolve();
    },
  });
  // Window-aligned and an hour back: the event times are all explicit, the clock does not matter.
  const T = Math.floor((Date.now() - 60 * 60_000) / WINDOW_MS) * WINDOW_MS;
  context.step(
    `Created ${topic} (1 partition); windows of ${WINDOW_MS / 60_000} min, grace ${GRACE_MS / 1000} s; ` +
      `T = ${new Date(T).toISOString()}.`,
  );

  const state = new WindowState(GRACE_MS);
  const late: LateEvent<Consumed>[] = [];
  const newWindowCounts: number[] = [];
  // Every phase is published first, in order, then the whole topic is read back once and folded
  // phase by phase in offset order: delivery order is what the watermark judges, and one read
  // does not depend on a consumer staying current between phases.
  const phases = windowPhases(T);
  for (const phase of phases) {
    signal.throwIfAborted();
    await producer.send({
      topic,
      acks: -1,
      messages: phase.events.map((e) => orderPlacedRecord(topic, e.customerId, new Date(e.at)).message),
    });
  }
  const total = phases.reduce((n, phase) => n + phase.events.length, 0);
  const all = await waitFor(
    `${total} records consumed back`,
    () => (consumed.length >= total ? [...consumed].sort(byOffset).slice(0, total) : undefined),
    // Long enough for the group to join, or rejoin after a rebalance, on a loaded machine.
    { signal, timeoutMs: 60_000 },
  );
  let from = 0;
  for (const phase of phases) {
    const batch = all.slice(from, from + phase.events.length);
    from += phase.events.length;
    const fold = state.apply(batch.map((record) => orderCountOf(topic, record)));
    late.push(...fold.late);
    if (phase.id === 'new-window') newWindowCounts.push(...fold.counted.map((c) => c.counts.placed));
    context.step(stepText(phase, fold.counted.length, fold.late.length), windowTable(state.rows()));
  }
  const problems = windowProblems(T, state, late, newWindowCounts);
  return {
    passed: problems.length === 0,
    summary:
      problems.length === 0
        ? 'A:3, B:2 in one window; the old event counted in its own earlier window; the new window started from zero; the too-late event was recorded, not counted.'
        : problems.join('; '),
    evidence: [windowTable(state.rows()), lateTable(late), graceEvidence(T)],
  };
}

/** The record as analytics-service reads it: the envelope's ce_time and the payload's customer. */
function orderCountOf(topic: string, record: Consumed): OrderCount<Consumed> {
  const envelope = decodeEnvelope(record.message.value, record.message.headers);
  if (!envelope.ok) throw new Error(`offset ${record.message.offset}: ${envelope.reason}`);
  const payload = OrderPlacedPayloadSchema.parse(envelope.payload);
  return {
    ref: record,
    topic,
    partition: record.partition,
    customerId: payload.customerId,
    eventTime: new Date(envelope.metadata.time),
    change: { placed: 1 },
  };
}

const byOffset = (a: Consumed, b: Consumed): number =>
  Number(BigInt(a.message.offset) - BigInt(b.message.offset));

const stepText = (phase: Phase, counted: number, late: number): string =>
  `${phase.text}: published and consumed back ${phase.events.length}; ${counted} counted, ${late} late.`;

const graceEvidence = (T: number): Evidence => ({
  kind: 'values',
  caption: 'Windows',
  entries: [
    ['window length', `${WINDOW_MS / 60_000} min, aligned to the epoch (windowOf)`],
    ['grace after a window ends', `${GRACE_MS / 1000} s (ANALYTICS_GRACE_MS default)`],
    [
      'first window',
      `${windowOf(new Date(T)).start.toISOString()} – ${windowOf(new Date(T)).end.toISOString()}`,
    ],
  ],
});
