import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceName } from '@pipeline/contracts';
import { uniqueName } from '../support/kafka';
import { FaultStack } from '../faults/support/fault-stack';
import { DeadLetters } from './dead-letter-count';
import { fuzzCases, readersOf, type Expectation, type FuzzCase } from './fuzz-cases';
import { runFuzzSet, type FuzzRun } from './fuzz-run';

// What a new user writes with a Kafka client nobody here wrote (kcat, i.e. librdkafka; the Java
// client for record timestamps, which kcat cannot set): every codec, odd headers, null keys and
// values, 1 MiB values, transactions. Each case is judged on what the pipeline did with it; then
// orders placed over HTTP must still be confirmed on every partition, and the audit of the fault
// suite finds nothing lost or duplicated. docs/reliability.md, fault 8.

/** KAFKA_TOPIC_PARTITIONS of the services the harness starts. */
const PARTITIONS = 3;
const RUN_ID = uniqueName('kcat').replaceAll('.', '-');
const CASES = fuzzCases(RUN_ID, PARTITIONS);

const casesOf = <K extends Expectation['kind']>(kind: K) =>
  CASES.filter((fuzz) => fuzz.expect.kind === kind).map(
    (fuzz) => [fuzz.name, fuzz as FuzzCase & { expect: Extract<Expectation, { kind: K }> }] as const,
  );

/** Letters per service that reads the case's topic, for each record of the case. */
function lettersOf(run: FuzzRun, fuzz: FuzzCase): Partial<Record<ServiceName, number>>[] {
  const written = run.written.get(fuzz.name);
  return (written?.positions ?? []).map((position) =>
    Object.fromEntries(readersOf(fuzz.topic).map((service) => [service, run.letters.of(service, position)])),
  );
}

describe('fault: records from clients other than kafkajs (kcat fuzz set)', () => {
  let stack: FaultStack | undefined;
  let run: FuzzRun;

  beforeAll(async () => {
    const startedAt = Date.now();
    const log = (what: string) => console.log(`[kcat fuzz] ${what} (${(Date.now() - startedAt) / 1000} s)`);
    stack = await FaultStack.start('kcat');
    log('stack started');
    run = await runFuzzSet(stack, CASES, { runId: RUN_ID, partitions: PARTITIONS, log });
    log('snapshot taken');
  }, 420_000);

  afterAll(() => stack?.stop());

  it.for(casesOf('poison'))(
    'poison, dead-lettered once by each group that cannot read it: %s',
    ([, fuzz]) => {
      const expected = Object.fromEntries(
        readersOf(fuzz.topic).map((service) => [
          service,
          fuzz.expect.deadLetteredBy.includes(service) ? 1 : 0,
        ]),
      );
      expect(run.written.get(fuzz.name)?.refused).toBeUndefined();
      expect(lettersOf(run, fuzz)).toEqual(run.written.get(fuzz.name)!.positions.map(() => expected));
    },
  );

  it.for(casesOf('order'))('valid order, confirmed once, dead-lettered by none: %s', ([, fuzz]) => {
    const { orderId } = fuzz.expect.order.payload;
    expect(run.states.get(orderId)).toEqual({ status: 'CONFIRMED', terminals: 1, emails: 1 });
    const none = Object.fromEntries(readersOf(fuzz.topic).map((service) => [service, 0]));
    expect(lettersOf(run, fuzz)).toEqual([none]);
  });

  it.for(casesOf('aborted'))('neither processed nor dead-lettered: %s', ([, fuzz]) => {
    const none = Object.fromEntries(readersOf(fuzz.topic).map((service) => [service, 0]));
    expect(lettersOf(run, fuzz)).toEqual([none, none]);
    expect(run.paid.get(fuzz.expect.orderId)).toBe(false);
  });

  it.for(casesOf('refused'))('refused by the broker, nothing written: %s', ([, fuzz]) => {
    const written = run.written.get(fuzz.name);
    expect(written?.refused).toMatch(fuzz.expect.error);
    expect(written?.positions).toEqual([]);
  });

  it('every group commits past all of it, transaction markers included, before more records come', () => {
    expect(run.notMovedPast).toEqual([]);
  });

  it('orders placed over HTTP afterwards are confirmed on every partition of orders', () => {
    expect(new Set(run.httpOrders.map((order) => order.partition)).size).toBe(PARTITIONS);
    for (const order of run.httpOrders)
      expect({ order: order.orderId, ...run.states.get(order.orderId) }).toEqual({
        order: order.orderId,
        status: 'CONFIRMED',
        terminals: 1,
        emails: 1,
      });
  });

  it('no dead letter that no case asks for', () => {
    const expected = new Set<string>();
    for (const { fuzz, positions } of run.written.values())
      if (fuzz.expect.kind === 'poison')
        for (const service of fuzz.expect.deadLetteredBy)
          for (const position of positions) expected.add(DeadLetters.keyOf(service, position));
    expect(run.letters.unexpected(expected)).toEqual([]);
  });

  it('nothing lost or duplicated, outboxes empty, no lag', () => {
    expect(run.audit.problems).toEqual([]);
    expect(run.settled).toBe(true);
    expect({ lost: run.audit.lost, duplicated: run.audit.duplicated }).toEqual({ lost: 0, duplicated: 0 });
    expect({ outbox: run.audit.outboxRows, lag: run.audit.lag }).toEqual({ outbox: 0, lag: 0 });
  });
});
