import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Topics } from '@pipeline/contracts';
import { eventually } from '../support/processes';
import { FaultStack } from './support/fault-stack';
import { runFault, type FaultResult, expectNothingLostOrDuplicated } from './support/fault-run';
import { startOwnKafkaCluster, type OwnKafkaCluster } from './support/own-kafka';
import { leaderOf, underReplicated } from './support/replicas';

// kill -9 of the broker leading a busy partition (orders/0) on the suite's own three-node cluster
// (replication factor 3, min.insync.replicas 2), then its restart. With the relay on acks=all an
// acknowledged event is on at least two brokers, so one broker's death loses nothing. With acks=1
// the leader alone acknowledged, and what it had not yet replicated may go with it: that run may
// lose events, and its row says how many orders were left without their effects.
const REPLICATION = { KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2' };

async function killLeaderUnderLoad(
  cluster: OwnKafkaCluster,
  stack: FaultStack,
  acks: 'all' | '1',
): Promise<FaultResult> {
  const topics = ['orders', 'payments', 'inventory'].map((topic) => stack.prefix + topic);
  let isrRestoredSeconds = 0;
  return runFault(stack, {
    fault: `broker loss, acks=${acks}`,
    ordersBefore: 40,
    ordersAfter: 40,
    drainTimeoutMs: acks === 'all' ? 180_000 : 90_000,
    inject: async (load) => {
      const leader = await leaderOf(stack.admin, stack.prefix + Topics.orders, 0);
      await cluster.kill(leader);
      const killedAt = Date.now();
      // Producers and consumers carry on with two brokers.
      await load.placedMore(40);
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
    notes: () => `leader of orders/0 killed; full ISR again ${isrRestoredSeconds} s later`,
  });
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
      console.log(`acks=1: ${result.lost} of ${result.placed} orders lost an effect when the leader died`);
      expect(result.duplicated).toBe(0);
      expect(result.outboxRows).toBe(0);
    }, 900_000);
  });
});
