// Bad records for the saga topics, and the check that every consumer of a topic dead-lettered
// each of them with a reason.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kafka, Producer } from 'kafkajs';
import {
  DeadLetterHeaders,
  EventHeaders,
  dataSchemaOf,
  deadLetterTopic,
  encodeHeaders,
  headerValue,
  metadataOf,
} from '@pipeline/contracts';
import { readTopic } from '../../support/kafka';
import type { ServiceName } from '../../support/service-harness';

export interface BadRecord {
  readonly name: string;
  readonly topic: string;
  /** The consumers that must dead-letter it (a consumer without a handler for a valid-looking type skips it). */
  readonly deadLetteredBy: readonly ServiceName[];
  readonly key: string;
  readonly value: Buffer | string | null;
  readonly headers: Record<string, string>;
}

export interface SentBadRecord extends BadRecord {
  readonly partition: number;
  readonly offset: string;
}

const placedPayload = (orderId: string) => ({
  orderId,
  customerId: 'fuzz-c1',
  customerEmail: 'fuzz@example.test',
  items: [{ sku: 'SKU-APPLE', quantity: 1, unitPrice: '1.00' }],
  total: '1.00',
  currency: 'EUR',
  placedAt: new Date().toISOString(),
});

function envelope(topic: string, type: string, orderId: string): Record<string, string> {
  const metadata = metadataOf(
    { topic, key: orderId, type, payload: {}, correlationId: orderId },
    'fuzz-producer',
  );
  return Object.fromEntries(
    Object.entries(encodeHeaders(metadata)).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, String(value)]],
    ),
  );
}

export function badRecords(): BadRecord[] {
  const all: ServiceName[] = ['payment', 'email', 'analytics'];
  const id = () => randomUUID();
  const make = (name: string, build: (orderId: string) => Omit<BadRecord, 'name' | 'key'>): BadRecord => {
    const key = id();
    return { name, key, ...build(key) };
  };
  return [
    make('garbage bytes, no headers', () => ({
      topic: 'orders',
      deadLetteredBy: all,
      value: randomBytes(512),
      headers: {},
    })),
    make('valid payload, CloudEvents headers missing', (orderId) => ({
      topic: 'orders',
      deadLetteredBy: all,
      value: JSON.stringify(placedPayload(orderId)),
      headers: {},
    })),
    make('wrong schema version (v99)', (orderId) => ({
      topic: 'orders',
      deadLetteredBy: all,
      value: JSON.stringify(placedPayload(orderId)),
      headers: {
        ...envelope('orders', 'order.placed', orderId),
        [EventHeaders.dataSchema]: dataSchemaOf('order.placed', 99),
      },
    })),
    make('type not declared for the topic', (orderId) => ({
      topic: 'orders',
      deadLetteredBy: all,
      value: JSON.stringify(placedPayload(orderId)),
      headers: { ...envelope('orders', 'order.placed', orderId), [EventHeaders.type]: 'order.shipped' },
    })),
    make('ce_id not a UUID', (orderId) => ({
      topic: 'orders',
      deadLetteredBy: all,
      value: JSON.stringify(placedPayload(orderId)),
      headers: { ...envelope('orders', 'order.placed', orderId), [EventHeaders.id]: 'not-a-uuid' },
    })),
    make('oversized record (600 kB), schema violation', (orderId) => ({
      topic: 'orders',
      deadLetteredBy: ['payment', 'analytics'],
      // In a field the schema bounds (64 characters): consumers drop an unknown field, not a violation.
      value: JSON.stringify({ ...placedPayload(orderId), customerId: 'x'.repeat(600_000) }),
      headers: envelope('orders', 'order.placed', orderId),
    })),
    make('garbage bytes on payments', () => ({
      topic: 'payments',
      deadLetteredBy: ['order', 'inventory'],
      value: randomBytes(256),
      headers: {},
    })),
    make('garbage bytes on inventory', () => ({
      topic: 'inventory',
      deadLetteredBy: ['order', 'payment'],
      value: randomBytes(256),
      headers: {},
    })),
  ];
}

export async function sendBadRecords(
  producer: Producer,
  prefix: string,
  records: readonly BadRecord[],
): Promise<SentBadRecord[]> {
  const sent: SentBadRecord[] = [];
  for (const record of records) {
    const [result] = await producer.send({
      topic: prefix + record.topic,
      acks: -1,
      messages: [{ key: record.key, value: record.value, headers: record.headers }],
    });
    sent.push({ ...record, partition: result!.partition, offset: result!.baseOffset! });
  }
  return sent;
}

/** What is still missing: `<record> not dead-lettered by <service>`, or one without a reason. */
export async function missingDeadLetters(
  kafka: Kafka,
  prefix: string,
  sent: readonly SentBadRecord[],
): Promise<string[]> {
  const missing: string[] = [];
  const services = [...new Set(sent.flatMap((record) => record.deadLetteredBy))];
  for (const service of services) {
    const letters = await readTopic(kafka, prefix + deadLetterTopic(service));
    for (const record of sent.filter((candidate) => candidate.deadLetteredBy.includes(service))) {
      const letter = letters.find(
        (candidate) =>
          headerValue(candidate.headers, DeadLetterHeaders.originalTopic) === prefix + record.topic &&
          headerValue(candidate.headers, DeadLetterHeaders.originalPartition) === String(record.partition) &&
          headerValue(candidate.headers, DeadLetterHeaders.originalOffset) === record.offset,
      );
      if (letter === undefined) missing.push(`${record.name}: not dead-lettered by ${service}`);
      else if (!headerValue(letter.headers, DeadLetterHeaders.error))
        missing.push(`${record.name}: ${service} gave no reason`);
    }
  }
  return missing;
}
