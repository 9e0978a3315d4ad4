import { afterAll, beforeAll, describe, it } from 'vitest';
import { EMAIL_MAX_IN_FLIGHT } from '@pipeline/contracts';
import { eventually } from '../support/processes';
import type { ServiceName } from '../support/service-harness';
import { FULL } from './faults-mode';
import { FaultStack, SERVICES } from './support/fault-stack';
import { runFault, expectNothingLostOrDuplicated, isSameMessageIdResend } from './support/fault-run';
import { outboxRows, totalLag } from './support/pipeline-audit';

// kill -9 of a service while it has work in hand (its own lag or outbox above 0), then a restart
// on the same database and group: the outbox and the inbox must make the crash invisible in the
// effects. CI crashes order-service (HTTP, relay and consumer in one); the full suite crashes
// each of the five in turn.
const victims: readonly ServiceName[] = FULL ? SERVICES : ['order'];

describe.each(victims)('fault: service crash (kill -9 mid-batch, restart): %s-service', (victim) => {
  let stack: FaultStack;

  // A stack per victim: each crash is audited on its own orders, databases and mailbox.
  beforeAll(async () => {
    stack = await FaultStack.start(`crash${victim}`);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('no lost and no duplicated effect', async () => {
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
      notes: (audit) => {
        const resends = audit.problems.filter(isSameMessageIdResend).length;
        return resends === 0
          ? ''
          : `${resends} email(s) re-sent with the Message-ID of the first (SMTP edge)`;
      },
    });
    // email-service killed between the SMTP server's reply and the row recording the send sends
    // that email again, with the same Message-ID: at most one per email in flight, i.e. per
    // pooled SMTP connection (docs/reliability.md, Known limits). Nothing else may repeat.
    expectNothingLostOrDuplicated(result, {
      sameMessageIdResends: victim === 'email' ? EMAIL_MAX_IN_FLIGHT : 0,
    });
  }, 600_000);
});
