// The fuzz set: what clients other than kafkajs write to the saga topics, one case per record (the
// aborted transaction holds two), each with what the pipeline must do with it. Cases go round the
// partitions of their topic, so every partition of `orders` gets bad records and kcat orders.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  EventConsumers,
  EventHeaders,
  ServiceNames,
  Topics,
  encodeHeaders,
  metadataOf,
  type SagaTopic,
  type ServiceName,
} from '@pipeline/contracts';
import type { Codec, KcatHeader, KcatRecord } from './kcat';
import {
  kcatOrder,
  orderPlacedHeaders,
  orderPlacedPayload,
  orderPlacedValue,
  padded,
  replaceHeader,
  type KcatOrder,
} from './kcat-orders';

export type Expectation =
  /** Dead-lettered exactly once by each of these services, and by no other. */
  | { readonly kind: 'poison'; readonly deadLetteredBy: readonly ServiceName[] }
  /** A valid order.placed: confirmed once, like an order placed over HTTP; dead-lettered by none. */
  | { readonly kind: 'order'; readonly order: KcatOrder }
  /** In an aborted transaction: never processed, never dead-lettered. */
  | { readonly kind: 'aborted'; readonly orderId: string }
  /** Refused by the broker: the client says so, and nothing is written. */
  | { readonly kind: 'refused'; readonly error: RegExp };

export type Write =
  | { readonly via: 'kcat'; readonly record: Omit<KcatRecord, 'topic'> }
  | {
      readonly via: 'kcat, aborted transaction';
      readonly partition: number;
      readonly headers: readonly KcatHeader[];
      readonly records: readonly { readonly key: string; readonly value: string }[];
    }
  | { readonly via: 'java'; readonly createTimeMs: number };

export interface FuzzCase {
  readonly name: string;
  /** The contract name; the spec adds the run's prefix. */
  readonly topic: SagaTopic;
  readonly write: Write;
  readonly expect: Expectation;
}

type Body = Omit<KcatRecord, 'topic' | 'partition'>;

/** The services whose group reads `topic`: a record none of them can read is poison to all. */
export const readersOf = (topic: string): ServiceName[] =>
  ServiceNames.filter((service) => EventConsumers[service].some((sub) => sub.topic === topic));

/** The readers that handle `type`: a well-formed event with a bad payload is poison to them only. */
export const handlersOf = (topic: string, type: string): ServiceName[] =>
  ServiceNames.filter((service) =>
    EventConsumers[service].some(
      (sub) => sub.topic === topic && (sub.types as readonly string[]).includes(type),
    ),
  );

const CODECS: readonly Codec[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const MIB = 1024 * 1024;

/** The envelope of a `type` event keyed `key`, as a producer of the pipeline would write it. */
function envelope(topic: string, type: string, key: string): KcatHeader[] {
  const metadata = metadataOf({ topic, key, type, payload: {}, correlationId: key }, 'kcat');
  return Object.entries(encodeHeaders(metadata));
}

/** Compressible, so that a codec really compresses it (see `padded`). */
const NOT_JSON = 'not json, '.repeat(500);
const placedJson = (orderId: string) =>
  padded(JSON.stringify(orderPlacedPayload(orderId, `${orderId}@kcat.test`)));

export function fuzzCases(runId: string, partitions: number): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const next = new Map<string, number>();
  const partitionFor = (topic: string): number => {
    const partition = next.get(topic) ?? 0;
    next.set(topic, (partition + 1) % partitions);
    return partition;
  };
  let sequence = 0;
  const newOrder = (partition: number) => kcatOrder(runId, sequence++, partition, partitions);

  const poison = (name: string, topic: SagaTopic, by: readonly ServiceName[], build: (key: string) => Body) =>
    cases.push({
      name,
      topic,
      write: { via: 'kcat', record: { ...build(randomUUID()), partition: partitionFor(topic) } },
      expect: { kind: 'poison', deadLetteredBy: by },
    });
  const valid = (name: string, codec: Codec, extra: Partial<Body> = {}, transactionalId?: string) => {
    const partition = partitionFor(Topics.orders);
    const order = newOrder(partition);
    const record = {
      key: order.payload.orderId,
      value: orderPlacedValue(order),
      codec,
      ...extra,
      headers: [...orderPlacedHeaders(order), ...(extra.headers ?? [])],
      partition,
      ...(transactionalId === undefined ? {} : { transactionalId }),
    };
    cases.push({
      name,
      topic: Topics.orders,
      write: { via: 'kcat', record },
      expect: { kind: 'order', order },
    });
  };

  const { orders, payments, inventory } = Topics;
  const all = readersOf(orders);
  const placedHandlers = handlersOf(orders, 'order.placed');
  const placed = (key: string) => envelope(orders, 'order.placed', key);

  for (const codec of CODECS) {
    valid(`valid order, ${codec}`, codec);
    poison(`value not JSON, ${codec}`, orders, all, (key) => ({
      key,
      value: NOT_JSON,
      headers: placed(key),
      codec,
    }));
  }
  valid('valid order, a null-valued header beside the envelope', 'lz4', { headers: [['x-note', null]] });
  valid('valid order, an empty header beside the envelope', 'gzip', { headers: [['x-note', '']] });
  valid('valid order, a non-UTF-8 header beside the envelope', 'snappy', {
    headers: [['x-bytes', Buffer.from([0xff, 0xfe, 0x80])]],
  });
  valid('valid order, null key', 'zstd', { key: null });

  poison('ce_type null', orders, all, (key) => ({
    key,
    value: placedJson(key),
    headers: replaceHeader(placed(key), EventHeaders.type, null),
    codec: 'snappy',
  }));
  poison('ce_id empty', orders, all, (key) => ({
    key,
    value: placedJson(key),
    headers: replaceHeader(placed(key), EventHeaders.id, ''),
  }));
  poison('ce_source not UTF-8', orders, all, (key) => ({
    key,
    value: placedJson(key),
    headers: replaceHeader(placed(key), EventHeaders.source, Buffer.from([0xc3, 0x28, 0xff])),
    codec: 'lz4',
  }));
  poison('ce_type twice, two values', orders, all, (key) => ({
    key,
    value: placedJson(key),
    headers: [...placed(key), [EventHeaders.type, 'order.confirmed']],
    codec: 'gzip',
  }));
  poison(
    'order.placed, null value (a tombstone on a non-compacted topic)',
    orders,
    placedHandlers,
    (key) => ({
      key,
      value: null,
      headers: placed(key),
    }),
  );
  poison('order.confirmed, null value', orders, handlersOf(orders, 'order.confirmed'), (key) => ({
    key,
    value: null,
    headers: envelope(orders, 'order.confirmed', key),
  }));
  poison('null value, no headers', orders, all, (key) => ({ key, value: null }));
  poison('null key, null value, no headers', orders, all, () => ({ key: null, value: null }));
  poison('empty value, envelope of order.placed', orders, all, (key) => ({
    key,
    value: '',
    headers: placed(key),
  }));
  poison('null key, order.placed violating its schema', orders, placedHandlers, (key) => ({
    key: null,
    value: padded(JSON.stringify({ orderId: key, total: '-1' })),
    headers: placed(key),
    codec: 'zstd',
  }));
  poison('valid JSON of the wrong event type (payment.authorized on orders)', orders, all, (key) => ({
    key,
    value: padded(JSON.stringify(paymentAuthorized(key))),
    headers: envelope(orders, 'payment.authorized', key),
    codec: 'lz4',
  }));
  poison('1 MiB value, zstd, order.placed violating its schema', orders, placedHandlers, (key) => ({
    key,
    value: JSON.stringify({ orderId: key, customerId: 'x'.repeat(MIB) }),
    headers: placed(key),
    codec: 'zstd',
  }));
  poison('1,048,000 random bytes, uncompressed, no headers', orders, all, (key) => ({
    key,
    value: randomBytes(1_048_000),
  }));
  cases.push({
    name: 'exactly 1 MiB uncompressed: over the broker limit',
    topic: orders,
    write: { via: 'kcat', record: { key: randomUUID(), value: randomBytes(MIB), partition: 0 } },
    expect: { kind: 'refused', error: /too large/i },
  });

  const now = Date.now();
  for (const [name, createTimeMs] of [
    ['record timestamp 1970-01-01T00:00:01Z (Java client)', 1000],
    ['record timestamp 50 minutes ahead (Java client)', now + 50 * 60_000],
  ] as const)
    cases.push({
      name,
      topic: orders,
      write: { via: 'java', createTimeMs },
      expect: { kind: 'poison', deadLetteredBy: all },
    });
  cases.push({
    name: 'record timestamp 2 hours ahead (Java client): over message.timestamp.after.max.ms',
    topic: orders,
    write: { via: 'java', createTimeMs: now + 2 * 60 * 60_000 },
    expect: { kind: 'refused', error: /InvalidTimestampException/ },
  });

  poison('payments: not JSON, no headers, snappy', payments, readersOf(payments), (key) => ({
    key,
    value: NOT_JSON,
    codec: 'snappy',
  }));
  poison(
    'payments: payment.authorized, null value',
    payments,
    handlersOf(payments, 'payment.authorized'),
    (key) => ({
      key,
      value: null,
      headers: envelope(payments, 'payment.authorized', key),
    }),
  );
  poison('inventory: order.placed, the wrong event type, lz4', inventory, readersOf(inventory), (key) => ({
    key,
    value: placedJson(key),
    headers: envelope(inventory, 'order.placed', key),
    codec: 'lz4',
  }));
  poison(
    'inventory: stock.rejected violating its schema, gzip',
    inventory,
    handlersOf(inventory, 'stock.rejected'),
    (key) => ({
      key,
      value: padded(JSON.stringify({ orderId: key })),
      headers: envelope(inventory, 'stock.rejected', key),
      codec: 'gzip',
    }),
  );

  // Transactions last, so that their markers end their partitions.
  valid('valid order, in a committed transaction', 'zstd', {}, `${runId}.committed`);
  const abortedPartition = partitionFor(orders);
  const aborted = newOrder(abortedPartition);
  cases.push({
    name: 'an aborted transaction: a valid order.placed and a record that is not JSON',
    topic: orders,
    write: {
      via: 'kcat, aborted transaction',
      partition: abortedPartition,
      headers: orderPlacedHeaders(aborted),
      records: [
        { key: aborted.payload.orderId, value: JSON.stringify(aborted.payload) },
        { key: randomUUID(), value: 'not json' },
      ],
    },
    expect: { kind: 'aborted', orderId: aborted.payload.orderId },
  });
  return cases;
}

const paymentAuthorized = (orderId: string) => ({
  orderId,
  paymentId: randomUUID(),
  customerId: 'kcat',
  amount: '1.25',
  currency: 'EUR',
  items: [{ sku: 'SKU-APPLE', quantity: 1, unitPrice: '1.25' }],
  authorizedAt: new Date().toISOString(),
});
