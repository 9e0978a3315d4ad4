// One run of the fuzz set against the five services: write every case with its client, check that
// every group moves past all of it, place orders over HTTP on every partition, wait for the
// pipeline to settle, and take one snapshot of what the cases are judged on.
import { recordFaultRow } from '../faults/support/fault-report';
import type { FaultStack } from '../faults/support/fault-stack';
import { audit, type Audit } from '../faults/support/pipeline-audit';
import { DeadLetters } from './dead-letter-count';
import type { FuzzCase } from './fuzz-cases';
import {
  hasPayment,
  notMovedPast,
  orderStates,
  placeOrdersOnEveryPartition,
  settled,
  type HttpOrder,
  type OrderState,
} from './fuzz-probes';
import { writeWithJavaClient } from './java-producer';
import { KcatRefused, writeAbortedTransaction, writeWithKcat, type Position } from './kcat';
import { insertOrders } from './kcat-orders';

export interface WrittenCase {
  readonly fuzz: FuzzCase;
  readonly positions: readonly Position[];
  /** What the client reported when the broker refused the record. */
  readonly refused?: string;
}

/** Writes the cases in order, each with its client, and says where each record landed. */
export async function writeCases(stack: FaultStack, cases: readonly FuzzCase[]): Promise<WrittenCase[]> {
  await insertOrders(
    stack.database('order'),
    cases.flatMap((fuzz) => (fuzz.expect.kind === 'order' ? [fuzz.expect.order] : [])),
  );
  const written: WrittenCase[] = [];
  for (let at = 0; at < cases.length;) {
    // Neighbouring Java writes go together: each starts a JVM, seconds on a busy machine.
    let end = at + 1;
    if (cases[at]!.write.via === 'java') while (cases[end]?.write.via === 'java') end++;
    written.push(...(await Promise.all(cases.slice(at, end).map((fuzz) => writeCase(stack, fuzz)))));
    at = end;
  }
  return written;
}

async function writeCase(stack: FaultStack, fuzz: FuzzCase): Promise<WrittenCase> {
  const topic = stack.prefix + fuzz.topic;
  const { write } = fuzz;
  switch (write.via) {
    case 'kcat':
      try {
        return { fuzz, positions: [await writeWithKcat({ ...write.record, topic })] };
      } catch (error) {
        if (error instanceof KcatRefused) return { fuzz, positions: [], refused: error.message };
        throw error;
      }
    case 'java': {
      const result = await writeWithJavaClient(topic, write.createTimeMs);
      return result.ok
        ? { fuzz, positions: [result] }
        : { fuzz, positions: [], refused: `${result.exception}: ${result.message}` };
    }
    case 'kcat, aborted transaction': {
      const ends = await stack.admin.fetchTopicOffsets(topic);
      const fromOffset = ends.find((end) => end.partition === write.partition)?.high ?? '0';
      const positions = await writeAbortedTransaction({
        topic,
        partition: write.partition,
        transactionalId: `${stack.prefix}aborted`,
        headers: write.headers,
        records: write.records,
        fromOffset,
      });
      return { fuzz, positions };
    }
  }
}

export interface FuzzRun {
  /** By case name. */
  readonly written: ReadonlyMap<string, WrittenCase>;
  /** Partitions some group had not committed to their end before the HTTP orders came. */
  readonly notMovedPast: readonly string[];
  readonly httpOrders: readonly HttpOrder[];
  readonly settled: boolean;
  readonly letters: DeadLetters;
  /** By order id: the HTTP orders and the orders kcat wrote. */
  readonly states: ReadonlyMap<string, OrderState>;
  /** By order id of an aborted transaction's order.placed: whether payment-service charged it. */
  readonly paid: ReadonlyMap<string, boolean>;
  readonly audit: Audit;
}

export interface FuzzRunOptions {
  readonly runId: string;
  readonly partitions: number;
  readonly log: (what: string) => void;
}

/** Runs the cases on `stack` and snapshots the outcome; records the run's row of the fault table. */
export async function runFuzzSet(
  stack: FaultStack,
  cases: readonly FuzzCase[],
  { runId, partitions, log }: FuzzRunOptions,
): Promise<FuzzRun> {
  const written = await writeCases(stack, cases);
  const injectedAt = Date.now();
  log(`${written.length} cases written`);
  const behind = await notMovedPast(stack, 20_000);
  log(behind.length === 0 ? 'every group moved past them' : `${behind.length} partitions not moved past`);
  const httpOrders = await placeOrdersOnEveryPartition(stack, runId, partitions, 2);
  const kcatOrders = cases.flatMap(({ expect }) =>
    expect.kind === 'order'
      ? [{ orderId: expect.order.payload.orderId, recipient: expect.order.payload.customerEmail }]
      : [],
  );
  const orders = [...httpOrders, ...kcatOrders];
  const letters = written.reduce(
    (sum, { fuzz: { expect }, positions }) =>
      sum + (expect.kind === 'poison' ? positions.length * expect.deadLetteredBy.length : 0),
    0,
  );
  const isSettled = await settled(stack, orders, letters, 90_000);
  const recoveredAt = isSettled ? Date.now() : null;
  log(isSettled ? 'settled' : 'not settled within 90 s');
  const paid = new Map<string, boolean>();
  for (const { expect } of cases)
    if (expect.kind === 'aborted') paid.set(expect.orderId, await hasPayment(stack, expect.orderId));
  const result = await audit(
    stack,
    orders.map((order) => ({ ...order, intended: 'confirmed' as const })),
  );
  const records = written.reduce((sum, entry) => sum + entry.positions.length, 0);
  await recordFaultRow({
    fault: 'foreign clients (kcat fuzz set)',
    placed: orders.length,
    lost: result.lost,
    duplicated: result.duplicated,
    recoverySeconds: recoveredAt === null ? null : Math.round((recoveredAt - injectedAt) / 100) / 10,
    notes:
      `${records} records from kcat and the Java client (${letters} dead letters expected, ` +
      `${kcatOrders.length} orders written by kcat), ${written.filter((entry) => entry.refused).length} refused by the broker`,
  });
  return {
    written: new Map(written.map((entry) => [entry.fuzz.name, entry])),
    notMovedPast: behind,
    httpOrders,
    settled: isSettled,
    letters: await DeadLetters.read(stack.prefix),
    states: await orderStates(stack, orders),
    paid,
    audit: result,
  };
}
