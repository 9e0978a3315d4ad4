import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes';
import { FaultStack } from './support/fault-stack';
import { runFault, expectNothingLostOrDuplicated } from './support/fault-run';
import { groupMembers } from './support/group-members';

// Two payment-service instances in one consumer group (and on one database); one is killed -9.
// It never leaves the group, so the coordinator notices only when its session times out (30 s,
// the consumer's sessionTimeout): then the survivor gets every partition and carries on.
const SESSION_TIMEOUT_MS = 30_000;
// orders and inventory, 3 partitions each (the harness' KAFKA_TOPIC_PARTITIONS), and the service's
// own dead-letter topic, which its group reads too (3 as well).
const PARTITIONS = 9;

describe('fault: one of two instances in a consumer group killed', () => {
  let stack: FaultStack;

  beforeAll(async () => {
    stack = await FaultStack.start('failover');
    await stack.startInstance('payment');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('its partitions move to the other within the session timeout; no lost and no duplicated effect', async () => {
    let failoverMs = 0;
    const result = await runFault(stack, {
      fault: 'one of two payment instances killed',
      inject: async () => {
        const group = stack.group('payment');
        await eventually(
          async () => {
            const { state, members } = await groupMembers(stack.admin, group);
            return state === 'Stable' && members.length === 2 && members.every((m) => m.partitions.length > 0)
              ? true
              : undefined;
          },
          { timeoutMs: 90_000, what: 'two payment instances sharing the partitions' },
        );
        const [victim] = stack.running('payment');
        const killedAt = Date.now();
        await stack.kill('payment', victim);
        await eventually(
          async () => {
            const { state, members } = await groupMembers(stack.admin, group);
            return state === 'Stable' && members.length === 1 && members[0]?.partitions.length === PARTITIONS
              ? true
              : undefined;
          },
          {
            timeoutMs: SESSION_TIMEOUT_MS + 60_000,
            intervalMs: 250,
            what: 'the survivor holding every partition',
          },
        );
        failoverMs = Date.now() - killedAt;
        return killedAt;
      },
      notes: () =>
        `partitions moved ${(failoverMs / 1000).toFixed(1)} s after the kill (session timeout 30 s)`,
    });
    console.log(
      `partitions moved to the surviving instance ${(failoverMs / 1000).toFixed(1)} s after the kill`,
    );
    // The coordinator waits out the session timeout, then rebalances: allow a rebalance's worth more.
    expect(failoverMs).toBeLessThan(SESSION_TIMEOUT_MS + 15_000);
    expectNothingLostOrDuplicated(result);
  }, 600_000);
});
