import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadLetterHeaders, EventHeaders, Topics, deadLetterTopic, headerValue } from '@pipeline/contracts';
import { readTopic, testKafka, uniqueName } from '../support/kafka';
import { eventually, type RunningProcess } from '../support/processes';
import { deletePrefixedTopics, startService, type ServiceUnderTest } from '../support/service-harness';
import { testProducer } from '../support/events';

// A running payment-service consumes `orders`: what it cannot process lands on its own
// dead-letter topic with the diagnostic headers, and the partition moves on.
describe('payment-service dead-letters poison records from the orders topic', () => {
  const kafka = testKafka();
  // The service provisions, consumes and dead-letters on topics of its own: `<prefix>orders`, ...
  const prefix = `${uniqueName('e2e')}.`;
  let group: string;
  let service: RunningProcess;
  let payment: ServiceUnderTest;

  beforeAll(async () => {
    payment = await startService('payment', {
      prefix,
      label: 'payment_dlt',
      env: { KAFKA_TOPIC_PARTITIONS: '6' },
    });
    ({ group, process: service } = payment);
  });

  afterAll(async () => {
    await payment?.stop();
    await deletePrefixedTopics(kafka, prefix);
  });

  it('dead-letters garbage bytes at once with error_class=fatal and attempts=1', async () => {
    const key = uniqueName('poison-key');
    const producer = testProducer(kafka);
    await producer.connect();
    const [sent] = await producer.send({
      topic: prefix + Topics.orders,
      acks: -1,
      messages: [{ key, value: Buffer.from([0xde, 0xad, 0xbe, 0xef]), headers: { 'x-test': key } }],
    });
    await producer.disconnect();

    const deadLetter = await eventually(
      async () =>
        (await readTopic(kafka, prefix + deadLetterTopic('payment'))).find(
          (record) =>
            record.key?.toString() === key &&
            headerValue(record.headers, DeadLetterHeaders.consumerGroup) === group,
        ),
      { timeoutMs: 30_000, what: 'the dead-letter record' },
    );
    const header = (name: string) => headerValue(deadLetter.headers, name);
    expect(deadLetter.value).toEqual(Buffer.from([0xde, 0xad, 0xbe, 0xef]));
    expect(header('x-test')).toBe(key);
    expect(header(DeadLetterHeaders.originalTopic)).toBe(prefix + Topics.orders);
    expect(header(DeadLetterHeaders.originalPartition)).toBe(String(sent?.partition));
    expect(header(DeadLetterHeaders.originalOffset)).toBe(sent?.baseOffset);
    expect(header(DeadLetterHeaders.errorClass)).toBe('fatal');
    expect(header(DeadLetterHeaders.attempts)).toBe('1');
    expect(header(DeadLetterHeaders.error)).toMatch(/missing required headers|not JSON/);
    expect(Number.isNaN(Date.parse(header(DeadLetterHeaders.failedAt) ?? ''))).toBe(false);
    expect(header(EventHeaders.id)).toBeUndefined();

    // The service logged it at WARN from its own dead-letter topic.
    await eventually(
      () => Promise.resolve(/"level":"warn".*dead.letter/i.test(service.output()) ? true : undefined),
      {
        timeoutMs: 20_000,
        what: 'the WARN log line of the dead letter',
      },
    );
  });
});
