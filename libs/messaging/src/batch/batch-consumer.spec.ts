import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { encodeHeaders, metadataOf, type EventContracts } from '@pipeline/contracts';
import { BatchConsumer } from './batch-consumer';
import { emptyCounters } from '../events/consumer-stats';
import type { DeadLetterPublisher } from '../dead-letters/dead-letter';
import type { PendingEvent } from '../handlers/event-batch';

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

/** Bytes without CloudEvents headers: poison, dead-lettered at once and never transacted. */
const poison = (offset: string): KafkaMessage => ({
  key: Buffer.from('k'),
  value: Buffer.from([0xde, 0xad]),
  timestamp: '0',
  attributes: 0,
  offset,
  headers: {},
});

/** A valid event of the test contracts (any type is declared, any payload valid). */
const event = (offset: string, key = 'k', type = 'thing.happened'): KafkaMessage => {
  const metadata = metadataOf(
    { topic: 'orders', key, type, payload: { n: offset }, correlationId: key },
    'test',
  );
  return {
    key: Buffer.from(key),
    value: Buffer.from(JSON.stringify({ n: offset })),
    timestamp: '0',
    attributes: 0,
    offset,
    headers: encodeHeaders(metadata),
  };
};

/** What the patched kafkajs decoder hands over for a record batch it cannot decode (offsets 3-5). */
const undecodable = (): KafkaMessage =>
  Object.assign(poison('5'), {
    key: null,
    value: null,
    undecodable: { firstOffset: '3', lastOffset: '5', compression: 2, error: 'KafkaJSNotImplemented: x' },
  });

const contracts: EventContracts = {
  isDeclaredFor: () => true,
  parseEvent: (type, value) => ({ ok: true, type, payload: value }),
};

/** A transaction the test lets commit (or fail) when it says so. */
function heldTransactions() {
  const calls: { offsets: string[]; commit(): void; fail(error: Error): void }[] = [];
  const run = vi.fn(
    (events: readonly PendingEvent[]) =>
      new Promise<void>((resolve, reject) => {
        calls.push({
          offsets: events.map((e) => `${e.position.partition}@${e.position.offset}`),
          commit: resolve,
          fail: reject,
        });
      }),
  );
  return { run, calls };
}

function consumerWith(
  options: {
    send?: DeadLetterPublisher['send'];
    undecodableBatches?: 'dead-letter' | 'stop';
    run?: (events: readonly PendingEvent[]) => Promise<void>;
    maxEventsPerTransaction?: number;
    busyLingerMs?: number;
    hasHandler?: (type: string) => boolean;
  } = {},
) {
  const commit = vi.fn((_offsets: unknown) => Promise.resolve());
  const send = vi.fn(options.send ?? (() => Promise.resolve()));
  // Poison records must never reach a transaction.
  const run = vi.fn(options.run ?? (() => Promise.reject(new Error('no transaction in this test'))));
  const pause = vi.fn();
  const resume = vi.fn();
  const crash = vi.fn();
  const consumer = new BatchConsumer({
    contracts,
    deadLetters: { send } as unknown as DeadLetterPublisher,
    deadLetterTopic: 'orders.dead-letter',
    counters: emptyCounters(),
    logger: quiet,
    retry: { attempts: 3, initialBackoffMs: 5, maxBackoffMs: 10, outageWindowMs: 0 },
    maxEventsPerTransaction: options.maxEventsPerTransaction ?? 500,
    busyLingerMs: options.busyLingerMs ?? 0,
    commits: { add: commit },
    run,
    hasHandler: options.hasHandler ?? (() => true),
    pause,
    resume,
    crash,
    undecodableBatches: options.undecodableBatches ?? 'dead-letter',
  });
  return { consumer, run, commit, send, pause, resume, crash };
}

/** `lastOffset`: kafkajs's, past records it filtered out behind the last one handed over. */
function payloadOf(messages: KafkaMessage[], lastOffset = messages.at(-1)?.offset, partition = 0) {
  const payload = {
    batch: { topic: 'orders', partition, messages, lastOffset: () => lastOffset },
    resolveOffset: vi.fn(),
  };
  return { payload, asKafkajs: payload as unknown as EachBatchPayload };
}

const handOver = (consumer: BatchConsumer, messages: KafkaMessage[], partition = 0) =>
  consumer.eachBatch(payloadOf(messages, undefined, partition).asKafkajs);

/** Waits until `condition` holds, one event-loop turn at a time. */
async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; !condition(); turn += 1) {
    if (turn > 10_000) throw new Error('condition never held');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('BatchConsumer: poison records and offsets', () => {
  it('lets kafkajs fetch on at once, and commits past a poison record only after its dead letter was sent', async () => {
    const { consumer, run, commit, send } = consumerWith();
    const { payload, asKafkajs } = payloadOf([poison('7')]);

    await consumer.eachBatch(asKafkajs);
    expect(payload.resolveOffset).toHaveBeenCalledWith('7');
    await consumer.idle();

    expect(run).not.toHaveBeenCalled();
    expect(send).toHaveBeenCalledTimes(1);
    expect(commit).toHaveBeenCalledWith([{ topic: 'orders', partition: 0, offset: '8' }]);
    expect(send.mock.invocationCallOrder[0]!).toBeLessThan(commit.mock.invocationCallOrder[0]!);
  });

  it('restarts the consumer and commits nothing when the dead letter cannot be sent', async () => {
    const failure = new Error('broker unavailable');
    const { consumer, commit, crash } = consumerWith({ send: () => Promise.reject(failure) });

    await handOver(consumer, [poison('7')]);
    await consumer.idle();

    // The restarted consumer fetches again from the committed offset: the record is not skipped.
    expect(crash).toHaveBeenCalledWith(failure);
    expect(commit).not.toHaveBeenCalled();
  });

  it('dead-letters an undecodable batch by its offset range and commits past its last offset', async () => {
    const { consumer, run, commit, send } = consumerWith();

    await handOver(consumer, [undecodable(), poison('6')]);
    await consumer.idle();

    expect(run).not.toHaveBeenCalled();
    const letters = send.mock.calls[0]![0];
    expect(letters.map((letter) => [letter.message.offset, letter.batch?.firstOffset])).toEqual([
      ['5', '3'],
      ['6', undefined],
    ]);
    expect(letters[0]).toMatchObject({ errorClass: 'fatal', error: 'KafkaJSNotImplemented: x' });
    expect(commit).toHaveBeenCalledWith([{ topic: 'orders', partition: 0, offset: '7' }]);
  });

  it('commits past a commit marker behind the last record once every record is resolved', async () => {
    const { consumer, commit } = consumerWith();
    // Offset 8 is a transaction's commit marker: kafkajs filtered it out of the messages.
    const { payload, asKafkajs } = payloadOf([poison('6'), poison('7')], '8');

    await consumer.eachBatch(asKafkajs);
    await consumer.idle();

    expect(payload.resolveOffset).toHaveBeenCalledWith('8');
    expect(commit).toHaveBeenCalledWith([{ topic: 'orders', partition: 0, offset: '9' }]);
  });

  it('commits past a batch kafkajs filtered out whole only once the records before it are resolved', async () => {
    const { consumer, commit } = consumerWith({ run: () => Promise.resolve() });
    const held = heldTransactions();
    const slow = consumerWith({ run: held.run });

    // Nothing of the partition waits: the skipped offsets are committed at once.
    consumer.skipped('orders', 0, '4');
    expect(commit).toHaveBeenCalledWith([{ topic: 'orders', partition: 0, offset: '5' }]);

    // An event is in its transaction: the commit waits for it, then covers both.
    await handOver(slow.consumer, [event('2')]);
    await until(() => held.calls.length === 1);
    slow.consumer.skipped('orders', 0, '4');
    expect(slow.commit).not.toHaveBeenCalled();
    held.calls[0]!.commit();
    await slow.consumer.idle();
    expect(slow.commit).toHaveBeenCalledWith([{ topic: 'orders', partition: 0, offset: '5' }]);
  });

  it('stops at an undecodable batch when told to: the hand-off fails and no offset moves', async () => {
    const { consumer, commit, send } = consumerWith({ undecodableBatches: 'stop' });
    const { payload, asKafkajs } = payloadOf([poison('2'), undecodable()]);

    await expect(consumer.eachBatch(asKafkajs)).rejects.toThrow(
      /undecodable record batch orders\/0@3-5 \(snappy\)/,
    );
    await consumer.idle();

    expect(send).not.toHaveBeenCalled();
    expect(payload.resolveOffset).not.toHaveBeenCalled();
    expect(commit).not.toHaveBeenCalled();
  });
});

describe('BatchConsumer: batches that form by themselves', () => {
  it('applies what arrived during a transaction in the next one, and commits each only after it', async () => {
    const { run, calls } = heldTransactions();
    const { consumer, commit } = consumerWith({ run });

    await handOver(consumer, [event('0')]);
    await until(() => calls.length === 1);
    // Two fetches arrive while the first transaction runs: handed over, fetched on, not applied.
    const second = payloadOf([event('1')]);
    const third = payloadOf([event('2'), event('3')]);
    await consumer.eachBatch(second.asKafkajs);
    await consumer.eachBatch(third.asKafkajs);
    expect(third.payload.resolveOffset).toHaveBeenCalledWith('3');
    expect(run).toHaveBeenCalledTimes(1);
    expect(commit).not.toHaveBeenCalled();

    calls[0]!.commit();
    await until(() => calls.length === 2);
    expect(commit).toHaveBeenLastCalledWith([{ topic: 'orders', partition: 0, offset: '1' }]);
    // One transaction for everything that waited, in offset order.
    expect(calls[1]!.offsets).toEqual(['0@1', '0@2', '0@3']);
    expect(commit).toHaveBeenCalledTimes(1);

    calls[1]!.commit();
    await consumer.idle();
    expect(commit).toHaveBeenLastCalledWith([{ topic: 'orders', partition: 0, offset: '4' }]);
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('pauses a partition that holds a transaction’s worth of records, and fetches it again once drained', async () => {
    const { run, calls } = heldTransactions();
    const { consumer, pause, resume } = consumerWith({ run, maxEventsPerTransaction: 2 });

    await handOver(consumer, [event('0')]);
    await until(() => calls.length === 1);
    await handOver(consumer, [event('1'), event('2')]);
    expect(pause).toHaveBeenCalledWith('orders', 0);
    expect(resume).not.toHaveBeenCalled();

    calls[0]!.commit();
    await until(() => calls.length === 2);
    calls[1]!.commit();
    await consumer.idle();
    expect(resume).toHaveBeenCalledWith('orders', 0);
  });

  it('keeps a failed event’s partition waiting from that record on while other partitions go on', async () => {
    const { run, calls } = heldTransactions();
    const { consumer, commit, pause, resume } = consumerWith({ run });

    await handOver(consumer, [event('0', 'a'), event('1', 'a')], 0);
    await handOver(consumer, [event('5', 'b')], 1);
    await until(() => calls.length === 1);
    expect(calls[0]!.offsets).toEqual(['0@0', '0@1', '1@5']);
    // The whole transaction fails; bisection finds partition 0's first event at fault.
    calls[0]!.fail(new Error('first try'));
    await until(() => calls.length === 2);
    calls[1]!.fail(new Error('still failing')); // 0@0 and 0@1
    await until(() => calls.length === 3);
    calls[2]!.fail(new Error('0@0 again')); // 0@0 alone
    await until(() => calls.length === 4);
    expect(calls[3]!.offsets).toEqual(['1@5']);
    calls[3]!.commit();
    await until(() => commit.mock.calls.length === 1);
    expect(commit).toHaveBeenCalledWith([{ topic: 'orders', partition: 1, offset: '6' }]);
    expect(pause).toHaveBeenCalledWith('orders', 0);

    // After the backoff partition 0 is tried again from the failed record, then fetched again.
    await until(() => calls.length === 5);
    expect(calls[4]!.offsets).toEqual(['0@0', '0@1']);
    expect(calls[4]!.offsets).not.toContain('1@5');
    calls[4]!.commit();
    await consumer.idle();
    expect(commit).toHaveBeenLastCalledWith([{ topic: 'orders', partition: 0, offset: '2' }]);
    expect(resume).toHaveBeenCalledWith('orders', 0);
  });

  it('after a new assignment drops what was queued and commits nothing of the transaction in flight', async () => {
    const { run, calls } = heldTransactions();
    const { consumer, commit } = consumerWith({ run });

    await handOver(consumer, [event('0')]);
    await until(() => calls.length === 1);
    await handOver(consumer, [event('1')]);
    // kafkajs fetches from the committed offset after a rejoin: 0 and 1 come again.
    consumer.reset(() => true);
    calls[0]!.commit();
    await consumer.idle();

    expect(commit).not.toHaveBeenCalled();
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('finishes the transaction in flight at stop, commits it, and takes nothing more', async () => {
    const { run, calls } = heldTransactions();
    const { consumer, commit } = consumerWith({ run });

    await handOver(consumer, [event('0')]);
    await until(() => calls.length === 1);
    await handOver(consumer, [event('1')]);
    const stopped = consumer.stop();
    calls[0]!.commit();
    await stopped;

    expect(commit).toHaveBeenCalledWith([{ topic: 'orders', partition: 0, offset: '1' }]);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('waits before the next transaction only after one of several keys, never after one alone', async () => {
    const { run, calls } = heldTransactions();
    const { consumer } = consumerWith({ run, busyLingerMs: 60_000 });

    await handOver(consumer, [event('0')]);
    await until(() => calls.length === 1);
    await handOver(consumer, [event('1')]);
    calls[0]!.commit();
    // A transaction of one record: the next one starts at once.
    await until(() => calls.length === 2);
    await handOver(consumer, [event('2', 'a'), event('3', 'b')]);
    calls[1]!.commit();
    await until(() => calls.length === 3);
    expect(calls[2]!.offsets).toEqual(['0@2', '0@3']);
    await handOver(consumer, [event('4')]);
    calls[2]!.commit();
    // Behind: the next transaction waits for company (a minute here), so nothing starts now.
    for (let turn = 0; turn < 100; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toHaveLength(3);
  });

  it('does not count the records it only skips: one event beside them is a transaction of one', async () => {
    const { run, calls } = heldTransactions();
    const hasHandler = (type: string) => type !== 'thing.skipped';
    const { consumer } = consumerWith({ run, busyLingerMs: 60_000, hasHandler });

    await handOver(consumer, [
      event('0'),
      event('1', 'k', 'thing.skipped'),
      event('2', 'k', 'thing.skipped'),
    ]);
    await until(() => calls.length === 1);
    expect(calls[0]!.offsets).toEqual(['0@0']);
    await handOver(consumer, [event('3')]);
    calls[0]!.commit();
    // Three records, one event: the service is not behind, so the next transaction starts at once.
    await until(() => calls.length === 2);
    expect(calls[1]!.offsets).toEqual(['0@3']);
  });

  it("does not wait after the events of one key: an order's events together are not a backlog", async () => {
    const { run, calls } = heldTransactions();
    const { consumer } = consumerWith({ run, busyLingerMs: 60_000 });

    await handOver(consumer, [event('0', 'order-1'), event('1', 'order-1', 'thing.followed')]);
    await until(() => calls.length === 1);
    expect(calls[0]!.offsets).toEqual(['0@0', '0@1']);
    await handOver(consumer, [event('2', 'order-2')]);
    calls[0]!.commit();
    await until(() => calls.length === 2);
    expect(calls[1]!.offsets).toEqual(['0@2']);
  });
});
