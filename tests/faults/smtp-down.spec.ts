import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { FaultStack } from './support/fault-stack';
import { runFault, expectNothingLostOrDuplicated } from './support/fault-run';
import { startOwnMaildev, type OwnMaildev } from './support/own-maildev';

// The SMTP server (a maildev of the suite's own) is down for 30 s under load. email-service's retry
// budget (12 attempts, backoff up to 5 s: about 45 s) outlasts the outage, so every email is sent
// once it returns; a longer outage dead-letters them and `npm run dlt -- replay` sends them.
const OUTAGE_MS = 30_000;

describe('fault: SMTP server down for 30 s', () => {
  let maildev: OwnMaildev;
  let stack: FaultStack;

  beforeAll(async () => {
    maildev = await startOwnMaildev();
    stack = await FaultStack.start('smtp', {
      smtpUrl: maildev.smtpUrl,
      maildevApi: maildev.apiUrl,
      serviceEnv: {
        email: {
          CONSUMER_RETRY_ATTEMPTS: '12',
          CONSUMER_RETRY_INITIAL_BACKOFF_MS: '500',
          CONSUMER_RETRY_MAX_BACKOFF_MS: '5000',
        },
      },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await maildev?.destroy();
  });

  it('emails are retried and sent once it returns, never twice', async () => {
    const result = await runFault(stack, {
      fault: 'smtp down 30 s',
      inject: async () => {
        await maildev.stop();
        // The outage is the fault itself: a fixed 30 s, not a wait for a condition.
        await sleep(OUTAGE_MS);
        await maildev.start();
      },
    });
    expectNothingLostOrDuplicated(result);
  }, 600_000);
});
