import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { BatchConsumer } from './batch-consumer';
import { emptyCounters } from '../events/consumer-stats';
import type { DeadLetterPublisher } from '../dead-letters/dead-letter';
import type { EventContracts } from '@pipeline/contracts';
import { HandlerRegistry } from '../handlers/event-handlers';
import type { BatchTransactionDeps } from '../transaction/batch-transaction';

/** Bytes without CloudEvents headers: poison, dead-lettered at once and never transacted. */
const poison = (offset: string): KafkaMessage => ({
  key: Buffer.from('k'),
  value: Buffer.from([0xde, 0xad]),
  timestamp: '0',
  attributes: 0,
  offset,
  headers: {},
});

/** What the patched kafkajs decoder hands over for a record batch it cannot decode (offsets 3-5). */
const undecodable = (): KafkaMessage =>
  Object.assign(poison('5'), {
    key: null,
    value: null,
    undecodable: { firstOffset: '3', lastOffset: '5', compression: 2, error: 'KafkaJSNotImplemented: x' },
  });

function consumerWith(
  send: DeadLetterPublisher['send'],
  undecodableBatches: 'dead-letter' | 'stop' = 'dead-letter',
) {
  const commit = vi.fn(() => Promise.resolve());
  // A transaction would take a connection first: poison records must never get that far.
  const transact = vi.fn(() => Promise.reject(new Error('no database in this test')));
  const consumer = new BatchConsumer({
    contracts: {} as EventContracts,
    deadLetters: { send } as unknown as DeadLetterPublisher,
    deadLetterTopic: 'orders.dead-letter',
    counters: emptyCounters(),
    logger: { log: () => undefined, warn: () => undefined, error: () => undefined },
    retry: { attempts: 3, initialBackoffMs: 10, maxBackoffMs: 100, outageWindowMs: 0 },
    heartbeatIntervalMs: 60_000,
    maxEventsPerTransaction: 500,
    lingerMs: 0,
    commits: { add: commit, flush: () => Promise.resolve() },
    transaction: {
      pool: { connect: transact } as unknown as BatchTransactionDeps['pool'],
      consumer: 'orders-group',
      source: 'test',
      counters: emptyCounters(),
      logger: { log: () => undefined, warn: () => undefined, error: () => undefined },
      handlers: new HandlerRegistry((_ctx, work) => work()),
    },
    pausePartition: () => undefined,
    undecodableBatches,
  });
  return { consumer, transact, commit };
}

/** `lastOffset`: kafkajs's, past records it filtered out behind the last one handed over. */
function payloadOf(messages: KafkaMessage[], lastOffset = messages.at(-1)?.offset) {
  const payload = {
    batch: { topic: 'orders', partition: 0, messages, lastOffset: () => lastOffset },
    resolveOffset: vi.fn(),
    commitOffsetsIfNecessary: vi.fn(() => Promise.resolve()),
    heartbeat: vi.fn(() => Promise.resolve()),
    isRunning: () => true,
    isStale: () => false,
  };
  return { payload, asKafkajs: payload as unknown as EachBatchPayload };
}

describe('BatchConsumer: poison records and offsets', () => {
  it('resolves and commits past a poison record only after its dead letter was sent', async () => {
    const send = vi.fn(() => Promise.resolve());
    const { consumer, transact, commit } = consumerWith(send);
    const { payload, asKafkajs } = payloadOf([poison('7')]);

    await consumer.eachBatch(asKafkajs);

    expect(transact).not.toHaveBeenCalled();
    expect(send).toHaveBeenCalledTimes(1);
    expect(payload.resolveOffset).toHaveBeenCalledWith('7');
    expect(send.mock.invocationCallOrder[0]!).toBeLessThan(
      payload.resolveOffset.mock.invocationCallOrder[0]!,
    );
    // The consumer's OffsetCommits sends it as { topics: [{ topic, partitions }] } (byTopic).
    expect(commit).toHaveBeenCalledWith([{ topic: 'orders', partition: 0, offset: '8' }]);
    expect(payload.resolveOffset.mock.invocationCallOrder[0]!).toBeLessThan(
      commit.mock.invocationCallOrder[0]!,
    );
  });

  it('leaves the offset where it was when the dead letter cannot be sent, so the record is fetched again', async () => {
    const send = vi.fn(() => Promise.reject(new Error('broker unavailable')));
    const { consumer, commit } = consumerWith(send);
    const { payload, asKafkajs } = payloadOf([poison('7')]);

    await expect(consumer.eachBatch(asKafkajs)).rejects.toThrow('broker unavailable');

    // kafkajs fetches again from the resolved offset when a batch fails: it must not be past 7.
    expect(payload.resolveOffset).not.toHaveBeenCalled();
    expect(commit).not.toHaveBeenCalled();
  });

  it('dead-letters an undecodable batch by its offset range and commits past its last offset', async () => {
    const send = vi.fn<DeadLetterPublisher['send']>(() => Promise.resolve());
    const { consumer, transact, commit } = consumerWith(send);
    const { payload, asKafkajs } = payloadOf([undecodable(), poison('6')]);

    await consumer.eachBatch(asKafkajs);

    expect(transact).not.toHaveBeenCalled();
    const letters = send.mock.calls[0]![0];
    expect(letters.map((letter) => [letter.message.offset, letter.batch?.firstOffset])).toEqual([
      ['5', '3'],
      ['6', undefined],
    ]);
    expect(letters[0]).toMatchObject({ errorClass: 'fatal', error: 'KafkaJSNotImplemented: x' });
    expect(payload.resolveOffset).toHaveBeenCalledWith('6');
    expect(commit).toHaveBeenCalledWith([{ topic: 'orders', partition: 0, offset: '7' }]);
  });

  it('commits past a commit marker behind the last record once every record is resolved', async () => {
    const send = vi.fn(() => Promise.resolve());
    const { consumer, commit } = consumerWith(send);
    // Offset 8 is a transaction's commit marker: kafkajs filtered it out of the messages.
    const { payload, asKafkajs } = payloadOf([poison('6'), poison('7')], '8');

    await consumer.eachBatch(asKafkajs);

    expect(payload.resolveOffset).toHaveBeenCalledWith('8');
    expect(commit).toHaveBeenCalledWith([{ topic: 'orders', partition: 0, offset: '9' }]);
  });

  it('stops at an undecodable batch when told to: the fetch fails and no offset moves', async () => {
    const send = vi.fn(() => Promise.resolve());
    const { consumer, commit } = consumerWith(send, 'stop');
    const { payload, asKafkajs } = payloadOf([poison('2'), undecodable()]);

    await expect(consumer.eachBatch(asKafkajs)).rejects.toThrow(
      /undecodable record batch orders\/0@3-5 \(snappy\)/,
    );

    expect(send).not.toHaveBeenCalled();
    expect(payload.resolveOffset).not.toHaveBeenCalled();
    expect(commit).not.toHaveBeenCalled();
  });
});
