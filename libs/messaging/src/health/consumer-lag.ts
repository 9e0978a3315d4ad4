import { PipelineMetrics } from '@pipeline/observability';
import type { Admin, Kafka } from 'kafkajs';

/**
 * Publishes `pipeline_consumer_lag` per topic-partition: the partition's end offset minus the
 * group's committed offset, both read from the broker. Read from the broker rather than from the
 * batches this process handled, so a stalled or crashed consumer shows its lag growing instead
 * of a frozen last value. Every member reports the whole group; aggregate with `max`.
 */
export class ConsumerLagReader {
  /** Created here (and closed here) only when no shared admin client was given. */
  private admin: Admin | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly groupId: string,
    private readonly topics: readonly string[],
    private readonly sharedAdmin?: Admin,
    private readonly onLag?: (topic: string, partition: number, lag: number) => void,
  ) {}

  async refresh(): Promise<void> {
    const admin = await this.connect();
    const [committed, ends] = await Promise.all([
      admin.fetchOffsets({ groupId: this.groupId, topics: [...this.topics] }),
      Promise.all(
        this.topics.map(async (topic) => ({ topic, offsets: await admin.fetchTopicOffsets(topic) })),
      ),
    ]);
    const committedBy = new Map<string, bigint>();
    for (const { topic, partitions } of committed) {
      for (const { partition, offset } of partitions) {
        // -1: nothing committed yet; the group starts from the beginning of the log.
        committedBy.set(`${topic}/${partition}`, offset === '-1' ? -1n : BigInt(offset));
      }
    }
    for (const { topic, offsets } of ends) {
      for (const { partition, high, low } of offsets) {
        const from = committedBy.get(`${topic}/${partition}`) ?? -1n;
        const start = from < 0n ? BigInt(low) : from;
        const lag = BigInt(high) - start;
        PipelineMetrics.consumerLag.set(
          { topic, partition: String(partition), group: this.groupId },
          Number(lag > 0n ? lag : 0n),
        );
        this.onLag?.(topic, partition, Number(lag > 0n ? lag : 0n));
      }
    }
  }

  async close(): Promise<void> {
    const admin = this.admin;
    this.admin = undefined;
    await admin?.disconnect();
  }

  private async connect(): Promise<Admin> {
    if (this.sharedAdmin !== undefined) return this.sharedAdmin;
    if (this.admin === undefined) {
      const admin = this.kafka.admin();
      await admin.connect();
      this.admin = admin;
    }
    return this.admin;
  }
}
