import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { Admin } from 'kafkajs';
import { createServedTopics } from '@pipeline/messaging';
import {
  parseConsumerPerf,
  parseEndToEndLatency,
  parsePgbench,
  parseProducerPerf,
  type ConsumerPerf,
  type EndToEndLatency,
  type PgbenchResult,
  type ProducerPerf,
} from './perf-output';

const exec = promisify(execFile);

export interface KafkaLimits {
  readonly recordSize: number;
  readonly partitions: number;
  readonly producer: Readonly<Record<'linger0' | 'linger20', ProducerPerf>>;
  readonly consumer: ConsumerPerf;
  /** One record at a time, produced (acks=all) and fetched: the floor under a pipeline hop. */
  readonly hop: EndToEndLatency;
  readonly hopRecords: number;
}

/**
 * Kafka's own producer and consumer perf tools against the same broker, on a topic shaped like
 * the pipeline's (6 partitions, acks=all, records about the size of an event with its headers);
 * then its end-to-end latency tool, one record at a time, on a topic of one partition.
 */
export async function measureKafka(options: {
  readonly repoRoot: string;
  readonly admin: Admin;
  readonly brokers: string;
  readonly topic: string;
  readonly records: number;
  readonly recordSize: number;
  readonly log: (line: string) => void;
}): Promise<KafkaLimits> {
  const { admin, topic, records, recordSize } = options;
  const partitions = 6;
  await createServedTopics(admin, [{ topic, numPartitions: partitions, replicationFactor: 1 }]);
  const env = { ...process.env, KAFKA_BOOTSTRAP: options.brokers };
  try {
    const produce = async (lingerMs: number): Promise<ProducerPerf> => {
      options.log(
        `kafka producer perf: ${records} records of ${recordSize} B, acks=all, linger.ms=${lingerMs}`,
      );
      const { stdout } = await exec(
        'bash',
        [
          'infra/bin/kafka-producer-perf-test.sh',
          ...['--topic', topic, '--num-records', String(records), '--record-size', String(recordSize)],
          ...['--throughput', '-1', '--producer-props', 'acks=all', `linger.ms=${lingerMs}`],
        ],
        { cwd: options.repoRoot, env, maxBuffer: 16 * 1024 * 1024 },
      );
      return parseProducerPerf(stdout);
    };
    const linger0 = await produce(0);
    const linger20 = await produce(20);
    options.log(`kafka consumer perf: ${2 * records} records`);
    const { stdout } = await exec(
      'bash',
      [
        'infra/bin/kafka-consumer-perf-test.sh',
        ...['--topic', topic, '--messages', String(2 * records), '--timeout', '60000'],
      ],
      { cwd: options.repoRoot, env, maxBuffer: 16 * 1024 * 1024 },
    );
    const consumer = parseConsumerPerf(stdout);
    const hopRecords = Math.min(2_000, records);
    options.log(
      `kafka end-to-end latency: ${hopRecords} records of ${recordSize} B, one at a time, acks=all`,
    );
    await createServedTopics(admin, [{ topic: `${topic}-hop`, numPartitions: 1, replicationFactor: 1 }]);
    const hop = await exec(
      'bash',
      [
        'infra/bin/kafka-e2e-latency.sh',
        ...[options.brokers, `${topic}-hop`, String(hopRecords), 'all', String(recordSize)],
      ],
      { cwd: options.repoRoot, env, maxBuffer: 16 * 1024 * 1024 },
    );
    return {
      recordSize,
      partitions,
      producer: { linger0, linger20 },
      consumer,
      hop: parseEndToEndLatency(hop.stdout),
      hopRecords,
    };
  } finally {
    await admin.deleteTopics({ topics: [topic, `${topic}-hop`] }).catch(() => undefined);
  }
}

/**
 * One pipeline hop as a consumer does it with one event per transaction: claim the event in the
 * inbox, change a business row, write the outgoing event to the outbox (whose trigger notifies the
 * relay), commit; then the relay's delete of a published row. Run on a database migrated like
 * inventory's, with a catalogue of 1,000 SKUs.
 */
export const HopScript = `\\set sku random(1, 1000)
\\set offset random(1, 1000000000)
BEGIN;
INSERT INTO inbox (consumer, event_id, topic, partition, "offset") VALUES ('pgbench', gen_random_uuid(), 'payments', :sku % 6, :offset) ON CONFLICT DO NOTHING;
UPDATE stock SET available = available - 1, reserved = reserved + 1, updated_at = now() WHERE sku = 'SKU-' || :sku;
INSERT INTO outbox (event_id, topic, key, type, payload, headers) VALUES (gen_random_uuid(), 'inventory', :offset::text, 'stock.reserved', '{"orderId":"6d0b8e9e-4bde-4a4e-9f7e-2f3b0c1d2e3f","items":[{"sku":"SKU-1","quantity":1}],"reservedAt":"2026-11-30T10:00:00.000Z"}', '{"ce_specversion":"1.0","ce_source":"inventory-service","content-type":"application/json"}');
COMMIT;
DELETE FROM outbox WHERE id = (SELECT id FROM outbox ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED);
`;

export const PGBENCH = process.env.PGBENCH ?? '/usr/lib/postgresql/15/bin/pgbench';

export async function measurePostgres(options: {
  readonly scriptPath: string;
  readonly database: string;
  readonly pg: { host: string; port: number; user: string };
  readonly seconds: number;
  readonly clients: readonly number[];
  readonly log: (line: string) => void;
}): Promise<PgbenchResult[]> {
  await writeFile(options.scriptPath, HopScript);
  const results: PgbenchResult[] = [];
  for (const clients of options.clients) {
    options.log(`pgbench: one-hop transaction, ${clients} clients, ${options.seconds} s`);
    const { stdout } = await exec(
      PGBENCH,
      [
        ...['-h', options.pg.host, '-p', String(options.pg.port), '-U', options.pg.user],
        ...['-n', '-M', 'prepared', '-c', String(clients), '-j', String(Math.min(clients, 2))],
        ...['-T', String(options.seconds), '-f', options.scriptPath, options.database],
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    results.push(parsePgbench(stdout));
  }
  return results;
}
