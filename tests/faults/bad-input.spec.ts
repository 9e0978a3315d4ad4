import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Producer } from 'kafkajs';
import { eventually } from '../support/processes';
import { FaultStack, SERVICES } from './support/fault-stack';
import { runFault, expectNothingLostOrDuplicated } from './support/fault-run';
import { HTTP_FUZZ_CASES } from './support/http-fuzz-cases';
import { rawHttp } from './support/raw-http';
import { badRecords, missingDeadLetters, sendBadRecords } from './support/topic-fuzz';

// Bad input at both edges while good orders keep flowing: every bad request gets a 4xx with a
// message (never a 5xx, never a crash), every bad record is dead-lettered with a reason, and the
// good traffic loses and duplicates nothing.
describe('fault: bad input over HTTP and on the topics', () => {
  let stack: FaultStack;
  let producer: Producer;

  beforeAll(async () => {
    stack = await FaultStack.start('badinput');
    producer = stack.kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
  });
  afterAll(async () => {
    await producer?.disconnect();
    await stack?.stop();
  });

  it('4xx for every bad request, a dead letter for every bad record, good traffic unharmed', async () => {
    const answers: { name: string; status: number; body: string; expect: string }[] = [];
    let missing: string[] = [];
    const result = await runFault(stack, {
      fault: 'bad input (HTTP and topic fuzz)',
      inject: async () => {
        const injectedAt = Date.now();
        const sent = await sendBadRecords(producer, stack.prefix, badRecords());
        for (const fuzz of HTTP_FUZZ_CASES) {
          const url = stack.url(fuzz.service);
          if (url === undefined) throw new Error(`${fuzz.service}-service is gone`);
          const answer = await rawHttp(url, fuzz.request).catch((error: Error) => ({
            status: 0,
            body: error.message,
          }));
          answers.push({
            name: fuzz.name,
            status: answer.status,
            body: answer.body.slice(0, 300),
            expect: fuzz.expect,
          });
        }
        missing = await eventually(
          async () => {
            const now = await missingDeadLetters(stack.kafka, stack.prefix, sent);
            return now.length === 0 ? now : undefined;
          },
          { timeoutMs: 90_000, intervalMs: 2_000, what: 'every bad record dead-lettered' },
        ).catch(async () => missingDeadLetters(stack.kafka, stack.prefix, sent));
        return injectedAt;
      },
      notes: () => `${HTTP_FUZZ_CASES.length} bad requests, ${badRecords().length} bad records`,
    });
    const wrong = answers.filter(
      (answer) =>
        answer.status >= 500 ||
        answer.status === 0 ||
        (answer.expect === 'reject' && (answer.status < 400 || !/"message"/.test(answer.body))),
    );
    expect(wrong).toEqual([]);
    expect(missing).toEqual([]);
    for (const name of SERVICES) expect(stack.running(name)).toHaveLength(1);
    expectNothingLostOrDuplicated(result);
  }, 600_000);
});
