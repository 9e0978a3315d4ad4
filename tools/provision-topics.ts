/**
 * Creates every topic the contracts declare (idempotent), as the services do at start-up.
 * Usage: node dist/tools/provision-topics.js   (KAFKA_BROKERS, KAFKA_TOPIC_PARTITIONS,
 * KAFKA_REPLICATION_FACTOR, KAFKA_MIN_INSYNC_REPLICAS from the environment)
 */
import { TopicCatalogue } from '@pipeline/contracts';
import { createKafka, parseBrokerList } from '@pipeline/messaging';
import { provisionTopics } from '@pipeline/service-kit';

const intFromEnv = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
};

async function main(): Promise<void> {
  const brokers = parseBrokerList(process.env.KAFKA_BROKERS ?? '127.0.0.1:9092');
  const admin = createKafka({ brokers, clientId: 'provision-topics' }).admin();
  await admin.connect();
  try {
    const result = await provisionTopics(admin, TopicCatalogue, {
      partitions: intFromEnv('KAFKA_TOPIC_PARTITIONS', 6),
      replicationFactor: intFromEnv('KAFKA_REPLICATION_FACTOR', 1),
      minInsyncReplicas: intFromEnv('KAFKA_MIN_INSYNC_REPLICAS', 1),
    });
    console.log(
      `[topics] ${result.created.length} created${result.created.length ? ` (${result.created.join(', ')})` : ''}, ${result.existing.length} already there`,
    );
  } finally {
    await admin.disconnect();
  }
}

main().catch((error: unknown) => {
  console.error(`[topics] provisioning failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
