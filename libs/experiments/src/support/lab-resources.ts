import { randomBytes } from 'node:crypto';
import type { Admin, ITopicConfig, Kafka } from 'kafkajs';
import { createServedTopics } from '@pipeline/messaging';
import type { ExperimentContext } from '../experiment';

/**
 * `lab.<experiment id>.<random>.`: every topic and group of one run starts with it. The pipeline's
 * topics (@pipeline/contracts Topics) and groups never start with `lab.`, so a run cannot touch them.
 */
export const labPrefix = (experimentId: string): string =>
  `lab.${experimentId}.${randomBytes(4).toString('hex')}.`;

export interface LabResourceNames {
  readonly topics: readonly string[];
  readonly groups: readonly string[];
}

/** The topics and groups whose names start with `prefix`. */
export async function listLabResources(admin: Admin, prefix: string): Promise<LabResourceNames> {
  const [topics, { groups }] = await Promise.all([admin.listTopics(), admin.listGroups()]);
  return {
    topics: topics.filter((name) => name.startsWith(prefix)).sort(),
    groups: groups
      .map((group) => group.groupId)
      .filter((id) => id.startsWith(prefix))
      .sort(),
  };
}

/**
 * Deletes every group, then every topic, of the run (groups first: a group's committed offsets
 * outlive its topic). Members must have left: an empty group is deletable, a live one is not.
 * The topics go even when a group cannot (a member still there): then it throws, naming both.
 */
export async function removeLabResources(admin: Admin, prefix: string): Promise<LabResourceNames> {
  const found = await listLabResources(admin, prefix);
  const [groups, topics] = await Promise.allSettled([
    found.groups.length > 0 ? admin.deleteGroups([...found.groups]) : Promise.resolve(),
    found.topics.length > 0 ? admin.deleteTopics({ topics: [...found.topics] }) : Promise.resolve(),
  ]);
  const failures = [groups, topics].flatMap((result, i) =>
    result.status === 'rejected' ? [`${i === 0 ? 'groups' : 'topics'}: ${messageOf(result.reason)}`] : [],
  );
  if (failures.length > 0) throw new Error(`cleanup of ${prefix}* failed (${failures.join('; ')})`);
  return found;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The step that reports what a cleanup removed. */
export const removedText = (removed: LabResourceNames): string =>
  `Deleted ${[...removed.topics, ...removed.groups].join(' and ') || 'nothing (none found)'}.`;

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
    await createServedTopics(
      admin,
      topics.map((topic) => ({
        topic: this.name(topic.name),
        numPartitions: topic.partitions ?? 1,
        replicationFactor: topic.replicationFactor ?? 1,
        configEntries: topic.configEntries ?? [],
      })),
    );
    return names;
  }

  /** Runs `close` at cleanup, before the topics go (last registered, first closed). */
  onCleanup(close: () => Promise<void>): void {
    this.closers.push(close);
  }

  /** Closes the clients, then removes the run's groups and topics; returns what it removed. */
  async cleanup(): Promise<LabResourceNames> {
    for (const close of this.closers.splice(0).reverse()) await close().catch(() => undefined);
    const admin = await this.connectedAdmin();
    try {
      return await removeLabResources(admin, this.context.namePrefix);
    } finally {
      this.admin = undefined;
      await admin.disconnect();
    }
  }
}

/** Runs `use` with the run's resources and cleans them up afterwards, whatever `use` did. */
export async function withLabResources<T>(
  context: Pick<ExperimentContext, 'kafka' | 'namePrefix'>,
  use: (lab: LabResources) => Promise<T>,
): Promise<T> {
  const lab = new LabResources(context);
  try {
    return await use(lab);
  } finally {
    await lab.cleanup();
  }
}
