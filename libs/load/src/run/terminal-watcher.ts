import { EventHeaders, Topics } from '@pipeline/contracts';
import type { Consumer, IHeaders, Kafka } from 'kafkajs';
import type { TerminalType } from './outcome-tracker';

const Confirmed = Buffer.from('order.confirmed');
const Cancelled = Buffer.from('order.cancelled');

/**
 * The terminal type of a record, compared as bytes: most records on `orders` are not terminal,
 * and decoding every type header to a string was a visible share of the generator's CPU.
 */
export function terminalType(headers: IHeaders | undefined): TerminalType | undefined {
  const raw = headers?.[EventHeaders.type];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined) return undefined;
  if (typeof value === 'string')
    return value === 'order.confirmed' || value === 'order.cancelled' ? value : undefined;
  if (value.equals(Confirmed)) return 'order.confirmed';
  return value.equals(Cancelled) ? 'order.cancelled' : undefined;
}

/**
 * Watches `orders` for terminal events from its current end (a fresh group, `fromBeginning: false`).
 * `start` resolves after the group has joined *and* completed a first fetch: a new group resolves
 * its "latest" offsets on that fetch, so orders placed afterwards cannot fall before them.
 */
export class TerminalWatcher {
  private readonly consumer: Consumer;
  readonly topic: string;

  constructor(
    private readonly kafka: Kafka,
    topicPrefix: string,
    private readonly onTerminal: (orderId: string, type: TerminalType) => void,
    readonly groupId: string,
  ) {
    this.topic = `${topicPrefix}${Topics.orders}`;
    this.consumer = kafka.consumer({ groupId: this.groupId, maxWaitTimeInMs: 100 });
  }

  /** Rejects when connecting fails or the join times out; the join timer is cleared on every path. */
  async start(timeoutMs = 60_000): Promise<void> {
    let settle: { resolve: () => void; reject: (error: Error) => void } | undefined;
    const joined = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    // Awaited below; until then a rejection must not count as unhandled (it would end the process).
    joined.catch(() => undefined);
    const timer = setTimeout(
      () => settle?.reject(new Error(`consumer did not join within ${timeoutMs} ms`)),
      timeoutMs,
    );
    let joinedGroup = false;
    this.consumer.on(this.consumer.events.GROUP_JOIN, () => {
      joinedGroup = true;
    });
    this.consumer.on(this.consumer.events.FETCH, () => {
      if (joinedGroup) settle?.resolve();
    });
    try {
      await this.consumer.connect();
      await this.consumer.subscribe({ topic: this.topic, fromBeginning: false });
      await this.consumer.run({
        // A fresh group per run that never resumes: committing offsets would only cost requests.
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          for (const message of batch.messages) {
            const type = terminalType(message.headers);
            if (type === undefined || message.key === null) continue;
            this.onTerminal(message.key.toString(), type);
          }
          await Promise.resolve();
        },
      });
      await joined;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Leaves and deletes the run's group: it never resumes, and an empty group left behind would
   * stay listed (Kafka drops an empty group without offsets only at its next retention check).
   */
  async stop(): Promise<void> {
    await this.consumer.disconnect();
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      await admin.deleteGroups([this.groupId]);
    } catch {
      // Already gone (GROUP_ID_NOT_FOUND) or the broker is away: nothing a run should fail for.
    } finally {
      await admin.disconnect();
    }
  }
}
