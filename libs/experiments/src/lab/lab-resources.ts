import type { Admin, ITopicConfig, Kafka } from 'kafkajs';
import { waitUntilServed } from '@pipeline/messaging';
import type { ExperimentContext } from '../experiment';

export interface LabTopic {
  /** Appended to the run's name prefix. */
  readonly name: string;
  readonly partitions?: number;
  readonly replicationFactor?: number;
  readonly configEntries?: ITopicConfig['configEntries'];
}

/**
 * The topics, groups and clients of one experiment run, all named with the run's prefix, and
 * their removal: `cleanup()` disconnects every client, then deletes every topic and group with
 * the prefix (also those a failed step left half-made), whatever happened before.
 */
export class LabResources {
  private admin: Admin | undefined;
  private readonly closers: (() => Promise<void>)[] = [];

  constructor(private readonly context: Pick<ExperimentContext, 'kafka' | 'namePrefix'>) {
    // Cleanup deletes by prefix: an empty one would mean every topic of the cluster.
    if (context.namePrefix.length < 3) throw new Error(`name prefix "${context.namePrefix}" is too short`);
  }

  get kafka(): Kafka {
    return this.context.kafka;
  }

  /** A topic or group name of this run. */
  name(suffix: string): string {
    return `${this.context.namePrefix}${suffix}`;
  }

  async connectedAdmin(): Promise<Admin> {
    if (this.admin === undefined) {
      const admin = this.context.kafka.admin();
      await admin.connect();
      this.admin = admin;
    }
    return this.admin;
  }

  /** Creates the topics (auto-creation is off on our brokers) and waits until each partition has a leader. */
  async createTopics(topics: readonly LabTopic[]): Promise<string[]> {
    const admin = await this.connectedAdmin();
    const names = topics.map((topic) => this.name(topic.name));
    await admin.createTopics({
      waitForLeaders: false,
      topics: topics.map((topic) => ({
        topic: this.name(topic.name),
        numPartitions: topic.partitions ?? 1,
        replicationFactor: topic.replicationFactor ?? 1,
        configEntries: topic.configEntries ?? [],
      })),
    });
    await waitUntilServed(admin, names);
    return names;
  }

  /** Runs `close` at cleanup, before the topics go (last registered, first closed). */
  onCleanup(close: () => Promise<void>): void {
    this.closers.push(close);
  }

  async cleanup(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) await close().catch(() => undefined);
    const admin = await this.connectedAdmin();
    try {
      const prefix = this.context.namePrefix;
      const { groups } = await admin.listGroups();
      const ours = groups.map((group) => group.groupId).filter((id) => id.startsWith(prefix));
      if (ours.length > 0) await admin.deleteGroups(ours);
      const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
      if (topics.length > 0) await admin.deleteTopics({ topics });
    } finally {
      this.admin = undefined;
      await admin.disconnect();
    }
  }
}
