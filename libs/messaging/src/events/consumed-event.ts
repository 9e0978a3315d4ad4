import type { KafkaMessage } from 'kafkajs';
import type { EventMetadata } from '@pipeline/contracts';

/** Where a consumed record came from. */
export interface RecordPosition {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
}

/** One event of a fetched batch, validated against its contract, as a handler receives it. */
export interface ConsumedEvent<Payload = unknown> {
  readonly payload: Payload;
  readonly metadata: EventMetadata;
  readonly position: RecordPosition;
  /** 1 on the first delivery to the handler, 2 and up when it failed before. */
  readonly attempt: number;
}

/** A consumed event together with the record that carried it (the library's own view). */
export interface PendingEvent extends ConsumedEvent {
  readonly message: KafkaMessage;
  /** Whether the record's trace is sampled: only then does processing it create spans. */
  readonly sampled: boolean;
}

/** `topic/partition`: the unit of order and of offsets. */
export const partitionOf = (position: Pick<RecordPosition, 'topic' | 'partition'>): string =>
  `${position.topic}/${position.partition}`;

/** The unit of order between handlers: the record key, or the partition for records without one. */
export const orderingKeyOf = (position: RecordPosition): string =>
  position.key === null ? `\u0000${partitionOf(position)}` : position.key;

export const describeEvent = (event: ConsumedEvent): string =>
  `${event.metadata.type} ${event.metadata.id} (${partitionOf(event.position)}@${event.position.offset})`;
