import { AssignerProtocol, type Admin } from 'kafkajs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes';
import {
  assertConsumerMainBuilt,
  startConsumerProcess,
  terminate,
  type ConsumerProcess,
} from './fixtures/consumer-process';
import { createTestBed, type TestBed } from './fixtures/test-bed';
import { testEventMessage } from './fixtures/test-events';

const REBALANCING = new Set(['PreparingRebalance', 'CompletingRebalance']);

/** Partition counts per member of a stable group, largest first. */
async function assignment(
  admin: Admin,
  groupId: string,
  topic: string,
  members: number,
): Promise<number[] | undefined> {
  const { groups } = await admin.describeGroups([groupId]);
  const group = groups[0];
  if (group?.state !== 'Stable' || group.members.length !== members) return undefined;
  const counts = group.members.map((member) => {
    const decoded = AssignerProtocol.MemberAssignment.decode(member.memberAssignment);
    return decoded?.assignment[topic]?.length ?? 0;
  });
  return counts.sort((a, b) => b - a);
}

describe('KafkaEventServer: consumer groups (fixture service as processes)', () => {
  let bed: TestBed | undefined;
  const processes: ConsumerProcess[] = [];

  beforeAll(() => assertConsumerMainBuilt());

  afterEach(async () => {
    for (const running of processes.splice(0)) running.child.kill('SIGKILL');
    await bed?.close();
    bed = undefined;
  });

  it('spreads 4 partitions 2/2, then 2/1/1, then 1/1/1/1 with one idle member; events sent during rebalances are applied once', async () => {
    bed = await createTestBed('groups', 4);
    const current = bed;
    const start = async () => {
      const running = await startConsumerProcess(current);
      processes.push(running);
      return running;
    };
    const expectAssignment = async (members: number, expected: number[]) => {
      const counts = await eventually(
        () => assignment(current.admin, current.groupId, current.topic, members),
        {
          what: `${members} members assigned ${expected.join('/')}`,
          timeoutMs: 40_000,
          intervalMs: 250,
        },
      );
      expect(counts).toEqual(expected);
    };
    const sent: string[] = [];
    const send = async (count: number) => {
      const messages = Array.from({ length: count }, (_, i) => {
        const seq = sent.length + i;
        return testEventMessage({ key: `order-${seq % 40}`, seq });
      });
      sent.push(...messages.map((message) => message.id));
      await current.send(messages);
    };

    await Promise.all([start(), start()]);
    await expectAssignment(2, [2, 2]);

    // A third member joins; the 100 events are produced once the rebalance it causes has begun.
    const joining = start();
    await eventually(
      async () => {
        const { groups } = await current.admin.describeGroups([current.groupId]);
        return REBALANCING.has(groups[0]?.state ?? '') ? true : undefined;
      },
      // The joiner is a new process: on a loaded machine it can take a while to boot and join.
      { what: 'rebalance started', intervalMs: 20, timeoutMs: 60_000 },
    );
    for (let batch = 0; batch < 10; batch++) await send(10);
    await joining;
    await expectAssignment(3, [2, 1, 1]);

    await Promise.all([start(), start()]);
    await expectAssignment(5, [1, 1, 1, 1, 0]);
    await send(20);

    const effects = await eventually(
      async () => {
        const counts = await current.effectCounts();
        return counts.size === sent.length ? counts : undefined;
      },
      { what: `${sent.length} events applied`, timeoutMs: 40_000 },
    );
    expect(sent.map((id) => effects.get(id))).toEqual(sent.map(() => 1));
    await eventually(
      async () => {
        const committed = await current.committed();
        const total = [...committed.values()].reduce((sum, offset) => sum + Math.max(offset, 0), 0);
        return total === sent.length ? true : undefined;
      },
      { what: 'every offset committed' },
    );
    const exits = await Promise.all(processes.splice(0).map((running) => terminate(running)));
    expect(exits).toEqual(exits.map(() => 'SIGTERM'));
  }, 150_000);
});
