import {
  Partitioners,
  type ICustomPartitioner,
  type Kafka,
  type Message,
  type PartitionerArgs,
  type Producer,
  type RetryOptions,
} from 'kafkajs';

// Short and bounded: a broker outage or a missing topic surfaces as a failed sendBatch within a
// few seconds, which the relay logs and retries with its own backoff, the rows still in the
// outbox. (kafkajs warns once per producer that limited retries may invalidate EoS.)
const PRODUCER_RETRY: RetryOptions = { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 };

/** Told the partition kafkajs chose for each message it sends (the message object itself). */
export type PartitionListener = (message: Message, partition: number) => void;

/**
 * The relay's producer: idempotent with one request in flight, so the broker drops a retried
 * duplicate and keeps each partition in the order sent; never creates topics. Not idempotent
 * only for the acks=1 demonstration (kafkajs refuses idempotence without acks from all).
 * `onPartition`, when given, hears every partition choice: `sendBatch` reports only a base
 * offset per partition, not which messages went there.
 */
export function createRelayProducer(
  kafka: Kafka,
  idempotent = true,
  onPartition?: PartitionListener,
): Producer {
  return kafka.producer({
    idempotent,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    retry: PRODUCER_RETRY,
    // Java-compatible murmur2: a key lands on the partition Java clients and tools expect.
    createPartitioner:
      onPartition === undefined ? Partitioners.DefaultPartitioner : listenedPartitioner(onPartition),
  });
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
