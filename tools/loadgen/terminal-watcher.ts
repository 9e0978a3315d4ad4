import { randomUUID } from 'node:crypto';
import { EventHeaders, Topics } from '@pipeline/contracts';
import { headerValue } from '@pipeline/messaging';
import type { Consumer, Kafka } from 'kafkajs';
import type { TerminalType } from './outcome-tracker';

const isTerminal = (type: string | undefined): type is TerminalType =>
  type === 'order.confirmed' || type === 'order.cancelled';

/**
 * Watches `orders` for terminal events from its current end (a fresh group, `fromBeginning: false`).
 * `start` resolves after the group has joined *and* completed a first fetch: a new group resolves
 * its "latest" offsets on that fetch, so orders placed afterwards cannot fall before them.
 */
export class TerminalWatcher {
  private readonly consumer: Consumer;
  readonly topic: string;

  constructor(
    kafka: Kafka,
    topicPrefix: string,
    private readonly onTerminal: (orderId: string, type: TerminalType) => void,
    readonly groupId = `loadgen-${randomUUID()}`,
  ) {
    this.topic = `${topicPrefix}${Topics.orders}`;
    this.consumer = kafka.consumer({ groupId: this.groupId, maxWaitTimeInMs: 100 });
  }

  async start(timeoutMs = 60_000): Promise<void> {
    const joined = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`consumer did not join within ${timeoutMs} ms`)),
        timeoutMs,
      );
      let joinedGroup = false;
      this.consumer.on(this.consumer.events.GROUP_JOIN, () => {
        joinedGroup = true;
      });
      this.consumer.on(this.consumer.events.FETCH, () => {
        if (!joinedGroup) return;
        clearTimeout(timer);
        resolve();
      });
    });
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.topic, fromBeginning: false });
    await this.consumer.run({
      eachBatch: async ({ batch }) => {
        for (const message of batch.messages) {
          const type = headerValue(message.headers, EventHeaders.type);
          if (!isTerminal(type) || message.key === null) continue;
          this.onTerminal(message.key.toString(), type);
        }
        await Promise.resolve();
      },
    });
    await joined;
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}
