import type { Kafka } from 'kafkajs';
import type { Availability } from '../experiment';

/** Whether the broker answers at all (one attempt, no retries: the page must not hang on it). */
export async function brokerAvailability(kafka: Kafka, brokers: readonly string[]): Promise<Availability> {
  const admin = kafka.admin({ retry: { retries: 0 } });
  try {
    await admin.connect();
    await admin.describeCluster();
    return { available: true };
  } catch (error) {
    return {
      available: false,
      reason: `Kafka does not answer at ${brokers.join(', ')}: ${error instanceof Error ? error.message : String(error)}`,
      howTo:
        'Start the single node with `npm run kafka:start` (or the whole infrastructure with `npm run infra:up`).',
    };
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
