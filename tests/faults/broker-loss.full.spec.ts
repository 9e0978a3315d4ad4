import { ordersFor } from './faults-mode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Topics } from '@pipeline/contracts';
import { eventually } from '../support/processes';
import { FaultStack } from './support/fault-stack';
import { compareAcknowledged, journalOutboxes, type AcknowledgedEvents } from './support/acknowledged-events';
import { runFault, type FaultResult, expectNothingLostOrDuplicated } from './support/fault-run';
import { startOwnKafkaCluster, type OwnKafkaCluster } from './support/own-kafka';
import { leaderOf, notLedBy, preferLeader, underReplicated } from './support/replicas';

// kill -9 of a broker that leads every partition of the stack's topics, on the suite's own
// three-node cluster (replication factor 3, min.insync.replicas 2), at the worst moment: its
// followers are behind, frozen (SIGSTOP) for 20 orders of load. Then its restart.
// With the relay on acks=all an acknowledged event is on every in-sync replica, so the death of
// one broker loses nothing. With acks=1 the leader alone acknowledged, and what it had not
// replicated dies with it: that run is expected to lose events (the test allows and reports it,
// it does not demand it). Both runs compare, event by event, the outbox rows the broker
// acknowledged with the log and with the consumers' inboxes (support/acknowledged-events.ts).
const REPLICATION = { KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2' };

async function killLeaderUnderLoad(
  cluster: OwnKafkaCluster,
  stack: FaultStack,
  acks: 'all' | '1',
): Promise<FaultResult & { events: AcknowledgedEvents }> {
  await journalOutboxes(stack);
  // The broker leading orders/0 is made the leader of every partition of the stack's topics, so
  // that everything the relays send during the fault goes to the broker that dies.
  const leader = await leaderOf(stack.admin, stack.prefix + Topics.orders, 0);
  const topics = (await stack.admin.listTopics()).filter((topic) => topic.startsWith(stack.prefix));
  await preferLeader(stack.admin, topics, leader);
  // Elected again on each poll: an election before the reassignment has landed changes nothing.
  await eventually(
    async () => {
      if ((await notLedBy(stack.admin, topics, leader)).length === 0) return true;
      await cluster.electPreferredLeaders();
      return undefined;
    },
    { timeoutMs: 120_000, intervalMs: 500, what: `node ${leader} leading every partition` },
  );
  const followers = cluster.brokers.map((_, index) => index + 1).filter((node) => node !== leader);
  let isrRestoredSeconds = 0;
  let events: AcknowledgedEvents | undefined;
  const result = await runFault(stack, {
    fault: `broker loss, acks=${acks}`,
    ordersBefore: ordersFor(4),
    ordersAfter: ordersFor(4),
    drainTimeoutMs: acks === 'all' ? 180_000 : 90_000,
    inject: async (load) => {
      // The worst moment for the leader to die: its followers are behind. They are frozen
      // (SIGSTOP) for 20 orders of load, well under replica.lag.time.max.ms (30 s), so they stay
      // in the ISR and one of them is elected. With acks=all the leader cannot acknowledge
      // meanwhile and the rows wait in the outboxes; with acks=1 it acknowledges what only it holds.
      let killedAt = 0;
      await Promise.all(followers.map((node) => cluster.pause(node)));
      try {
        await load.placedMore(ordersFor(2));
        await cluster.kill(leader);
        killedAt = Date.now();
      } finally {
        await Promise.all(followers.map((node) => cluster.resume(node)));
      }
      // Producers and consumers carry on with two brokers.
      await load.placedMore(ordersFor(4));
      await cluster.startNode(leader);
      await eventually(
        async () => ((await underReplicated(stack.admin, topics, 3)).length === 0 ? true : undefined),
        {
          timeoutMs: 120_000,
          intervalMs: 500,
          what: 'every partition back to 3 in-sync replicas',
        },
      );
      isrRestoredSeconds = Math.round((Date.now() - killedAt) / 1000);
      return killedAt;
    },
    notes: async () => {
      events = await compareAcknowledged(stack);
      return (
        `followers frozen for 20 orders, then the leader of every partition killed; full ISR again ${isrRestoredSeconds} s later; ` +
        `${events.missingFromLog.length} of ${events.acknowledged} acknowledged events missing from the log, ` +
        `${events.unseen.length} not processed by a consumer`
      );
    },
  });
  if (!events) throw new Error('the acknowledged events were not compared');
  return { ...result, events };
}

describe('fault: broker loss on a three-node cluster', () => {
  let cluster: OwnKafkaCluster;

  beforeAll(async () => {
    cluster = await startOwnKafkaCluster();
  }, 300_000);
  afterAll(async () => {
    await cluster?.destroy();
  });

  describe('acks=all', () => {
    let stack: FaultStack;
    beforeAll(async () => {
      stack = await FaultStack.start('brokerall', {
        brokers: cluster.brokers,
        env: { ...REPLICATION, OUTBOX_ACKS: 'all' },
      });
    });
    afterAll(async () => {
      await stack?.stop();
    });

    it('loses no acknowledged event; the cluster returns to full in-sync replicas', async () => {
      const result = await killLeaderUnderLoad(cluster, stack, 'all');
      expect(result.events.acknowledged).toBeGreaterThan(0);
      expect(result.events.missingFromLog).toEqual([]);
      expect(result.events.unseen).toEqual([]);
      expectNothingLostOrDuplicated(result);
    }, 900_000);
  });

  describe('acks=1 (the demonstration)', () => {
    let stack: FaultStack;
    beforeAll(async () => {
      stack = await FaultStack.start('broker1', {
        brokers: cluster.brokers,
        env: { ...REPLICATION, OUTBOX_ACKS: '1' },
      });
    });
    afterAll(async () => {
      await stack?.stop();
    });

    it('may lose events (reported), but never applies an effect twice', async () => {
      const result = await killLeaderUnderLoad(cluster, stack, '1');
      console.log(
        `acks=1: ${result.events.missingFromLog.length} of ${result.events.acknowledged} acknowledged events ` +
          `missing from the log; ${result.lost} effects lost across ${result.placed} orders when the leader died`,
      );
      expect(result.events.acknowledged).toBeGreaterThan(0);
      // What reached the log was processed; only the broker may have lost something.
      expect(result.events.unseen).toEqual([]);
      expect(result.problems.filter((problem) => problem.startsWith('duplicated'))).toEqual([]);
      expect(result.duplicated).toBe(0);
      expect(result.outboxRows).toBe(0);
    }, 900_000);
  });
});
