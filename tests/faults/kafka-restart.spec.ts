import { ordersFor } from './faults-mode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes';
import { FaultStack } from './support/fault-stack';
import { runFault, expectNothingLostOrDuplicated } from './support/fault-run';
import { startOwnKafkaNode, type OwnKafkaNode } from './support/own-kafka';
import { outboxRows } from './support/pipeline-audit';

// The single broker stops (gracefully) and starts again under load, on a node of the suite's own.
// Orders keep being accepted (the outbox is in Postgres); the relays and the consumers retry and
// catch up once the broker is back.
describe('fault: Kafka restart (single node) under load', () => {
  let kafka: OwnKafkaNode;
  let stack: FaultStack;

  beforeAll(async () => {
    kafka = await startOwnKafkaNode();
    stack = await FaultStack.start('kafka', { brokers: kafka.brokers });
  });
  afterAll(async () => {
    await stack?.stop();
    await kafka?.destroy();
  });

  it('producers and the relay retry and catch up: no lost and no duplicated effect', async () => {
    let backlogWhileDown = 0;
    const result = await runFault(stack, {
      fault: 'kafka restart (single node)',
      inject: async (load) => {
        await kafka.stop();
        // The broker is gone: accepted orders pile up in order-service's outbox.
        await load.placedMore(ordersFor(2));
        backlogWhileDown = await eventually(
          async () => {
            const backlog = await outboxRows(stack);
            return backlog > 0 ? backlog : undefined;
          },
          {
            what: 'outbox rows waiting for the broker',
          },
        );
        await kafka.start();
      },
    });
    expect(backlogWhileDown).toBeGreaterThan(0);
    expectNothingLostOrDuplicated(result);
  }, 600_000);
});
