import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterTopic } from '@pipeline/contracts';
import { DEFAULT_RETRY } from '@pipeline/messaging';
import { readTopic } from '../support/kafka';
import { FaultStack } from './support/fault-stack';
import { runFault, expectNothingLostOrDuplicated } from './support/fault-run';
import { startOwnMaildev, type OwnMaildev } from './support/own-maildev';

// The SMTP server (a maildev of the suite's own) is down for 60 s under load, and email-service
// runs with the defaults compose, Kubernetes and the stack ship: an event whose SMTP server is
// down waits with backoff for up to CONSUMER_RETRY_OUTAGE_WINDOW_MS (2 minutes) before it is
// dead-lettered, so every email is sent once the server returns, none is dead-lettered, none twice.
const OUTAGE_MS = 60_000;

describe('fault: SMTP server down for 60 s', () => {
  let maildev: OwnMaildev;
  let stack: FaultStack;

  beforeAll(async () => {
    maildev = await startOwnMaildev();
    stack = await FaultStack.start('smtp', {
      smtpUrl: maildev.smtpUrl,
      maildevApi: maildev.apiUrl,
      // The shipped retry defaults, not the test harness's shorter backoff.
      serviceEnv: {
        email: {
          CONSUMER_RETRY_INITIAL_BACKOFF_MS: String(DEFAULT_RETRY.initialBackoffMs),
          CONSUMER_RETRY_MAX_BACKOFF_MS: String(DEFAULT_RETRY.maxBackoffMs),
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
      fault: 'smtp down 60 s',
      inject: async () => {
        await maildev.stop();
        // The outage is the fault itself: a fixed 60 s, not a wait for a condition.
        await sleep(OUTAGE_MS);
        await maildev.start();
      },
    });
    expectNothingLostOrDuplicated(result);
    expect(await readTopic(stack.kafka, `${stack.prefix}${deadLetterTopic('email')}`)).toEqual([]);
  }, 600_000);
});
