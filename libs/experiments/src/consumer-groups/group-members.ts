import type { Consumer, Kafka } from 'kafkajs';
import type { Delivery } from './delivery-counts';

export interface GroupMembersOptions {
  readonly kafka: Kafka;
  readonly groupId: string;
  readonly topic: string;
  /** The stage a delivery is counted in, read when it happens. */
  readonly stage: () => string;
}

/**
 * Plain kafkajs consumers of one group, in this process. Each commits the offset after every
 * record it counts, so that a rebalance hands the partition over exactly where it stopped and
 * the next owner does not see the record again.
 */
export class GroupMembers {
  readonly deliveries: Delivery[] = [];
  /** memberId (as the broker reports it) → `member-<n>`. */
  readonly labels = new Map<string, string>();
  private readonly consumers: Consumer[] = [];

  constructor(private readonly options: GroupMembersOptions) {}

  /** `member-1` … in the order they were started. */
  get names(): string[] {
    return this.consumers.map((_, i) => `member-${i + 1}`);
  }

  get size(): number {
    return this.consumers.length;
  }

  /** Starts one more member; resolves once it has joined the group (after the rebalance it causes). */
  async add(): Promise<void> {
    const { kafka, groupId, topic, stage } = this.options;
    const label = `member-${this.consumers.length + 1}`;
    // Short heartbeats and fetch waits: members notice a rebalance in well under a second.
    const consumer = kafka.consumer({
      groupId,
      sessionTimeout: 10_000,
      rebalanceTimeout: 10_000,
      heartbeatInterval: 300,
      maxWaitTimeInMs: 200,
    });
    this.consumers.push(consumer);
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => this.labels.set(payload.memberId, label));
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        this.deliveries.push({
          key: message.key?.toString() ?? '',
          partition,
          member: label,
          stage: stage(),
        });
        await consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
      },
    });
  }

  /** Every member leaves the group (LeaveGroup), so that the group is empty and can be deleted. */
  async stop(): Promise<void> {
    await Promise.allSettled(this.consumers.map((consumer) => consumer.disconnect()));
  }
}
