import {
  Partitioners,
  type ICustomPartitioner,
  type Kafka,
  type Message,
  type PartitionerArgs,
  type Producer,
  type RetryOptions,
} from 'kafkajs';

/**
 * No retries inside kafkajs: a failed send is the relay's to repeat, after it has read the rows
 * again, a read that proves it still holds the lock. A retry of kafkajs's own would go out after
 * that proof, possibly once the lock has passed to a successor, and land behind the successor's
 * newer records (on a compacted topic, win over them).
 */
const PRODUCER_RETRY: RetryOptions = { retries: 0 };

/** Told the partition kafkajs chose for each message it sends (the message object itself). */
export type PartitionListener = (message: Message, partition: number) => void;

/**
 * The relay's producer: one request in flight, so each partition keeps the order sent; never
 * creates topics. Not idempotent: kafkajs refuses idempotence without retries. A request that
 * failed after the broker wrote it is written again when the relay repeats the batch (in id
 * order, so for a key the newest record still comes last); consumers' inboxes drop the copy.
 * `onPartition`, when given, hears every partition choice: `sendBatch` reports only a base
 * offset per partition, not which messages went there.
 */
export function createRelayProducer(kafka: Kafka, onPartition?: PartitionListener): Producer {
  return kafka.producer({
    idempotent: false,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    retry: PRODUCER_RETRY,
    // Java-compatible murmur2: a key lands on the partition Java clients and tools expect.
    createPartitioner:
      onPartition === undefined ? Partitioners.DefaultPartitioner : listenedPartitioner(onPartition),
  });
}

/** The relay's producer, connected on first use and kept until `drop()`. */
export class RelayProducer {
  private producer: Producer | undefined;
  /** Created but not connected yet: reused across failed connects. */
  private unconnected: Producer | undefined;

  constructor(private readonly create: () => Producer) {}

  /** Connected: `connected()` answers without a round trip. */
  get ready(): boolean {
    return this.producer !== undefined;
  }

  async connected(): Promise<Producer> {
    if (this.producer) return this.producer;
    this.unconnected ??= this.create();
    await this.unconnected.connect();
    [this.producer, this.unconnected] = [this.unconnected, undefined];
    return this.producer;
  }

  async drop(): Promise<void> {
    const producer = this.producer ?? this.unconnected;
    this.producer = this.unconnected = undefined;
    await producer?.disconnect().catch(() => undefined);
  }
}

const listenedPartitioner =
  (onPartition: PartitionListener): ICustomPartitioner =>
  () => {
    const partitioner = Partitioners.DefaultPartitioner();
    return (args: PartitionerArgs): number => {
      const partition = partitioner(args);
      onPartition(args.message, partition);
      return partition;
    };
  };
