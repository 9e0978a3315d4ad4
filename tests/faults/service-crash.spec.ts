import { afterAll, beforeAll, describe, it } from 'vitest';
import { eventually } from '../support/processes';
import type { ServiceName } from '../support/service-harness';
import { FULL } from './faults-mode';
import { FaultStack, SERVICES } from './support/fault-stack';
import { runFault, expectNothingLostOrDuplicated } from './support/fault-run';
import { outboxRows, totalLag } from './support/pipeline-audit';

// kill -9 of a service while it has work in hand (its own lag or outbox above 0), then a restart on the same database and group:
// the outbox and the inbox must make the crash invisible in the effects. CI crashes order-service
// (HTTP, relay and consumer in one); the full suite crashes each of the five in turn.
const victims: readonly ServiceName[] = FULL ? SERVICES : ['order'];

describe('fault: service crash (kill -9 mid-batch, restart)', () => {
  let stack: FaultStack;

  beforeAll(async () => {
    stack = await FaultStack.start('crash');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it.each(victims)(
    '%s-service: no lost and no duplicated effect',
    async (victim) => {
      const result = await runFault(stack, {
        fault: `service crash: ${victim}`,
        inject: async () => {
          // Mid-batch: the victim itself has work in hand, records fetched or waiting whose offsets
          // it has not committed, or rows in its outbox it has not relayed.
          await eventually(
            async () =>
              (await totalLag(stack, [victim])) + (await outboxRows(stack, [victim])) > 0 ? true : undefined,
            {
              timeoutMs: 60_000,
              intervalMs: 20,
              what: `${victim}-service with work in hand`,
            },
          );
          await stack.kill(victim);
          await stack.startInstance(victim);
        },
      });
      expectNothingLostOrDuplicated(result);
    },
    600_000,
  );
});
