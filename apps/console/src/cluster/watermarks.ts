import type { Admin, Kafka } from 'kafkajs';

/** Topic → partition → high watermark. */
export type Highs = Map<string, Map<number, string>>;

/**
 * High watermarks of any topic a group has committed on, through an admin client of their own.
 * kafkajs keeps every topic it was asked about in each later metadata request of that client, and
 * a topic deleted since (a test's, a tool's) then fails all of them: on the shared admin that would
 * stall the reset action and the topics page. Here a failure only replaces this client.
 */
export class Watermarks {
  private admin: Promise<Admin> | undefined;

  constructor(private readonly kafka: Kafka) {}

  /** The topics' high watermarks; a topic that cannot be read is left out (its lag shows 0). */
  async highs(topics: readonly string[]): Promise<Highs> {
    const highs: Highs = new Map();
    if (topics.length === 0) return highs;
    let failed = false;
    try {
      const admin = await this.connected();
      for (const topic of topics) {
        const offsets = await admin.fetchTopicOffsets(topic).catch(() => {
          failed = true;
          return [];
        });
        highs.set(topic, new Map(offsets.map((o) => [o.partition, o.high])));
      }
    } catch {
      failed = true;
    }
    if (failed) await this.close();
    return highs;
  }

  async close(): Promise<void> {
    const admin = this.admin;
    this.admin = undefined;
    await admin?.then((a) => a.disconnect()).catch(() => undefined);
  }

  private connected(): Promise<Admin> {
    if (this.admin === undefined) {
      // Fail fast: one retry, then the page shows what it has and the next refresh starts afresh.
      const admin = this.kafka.admin({ retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 1_000 } });
      this.admin = admin.connect().then(() => admin);
      this.admin.catch(() => (this.admin = undefined));
    }
    return this.admin;
  }
}
