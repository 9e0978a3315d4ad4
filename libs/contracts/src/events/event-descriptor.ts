import type { z } from 'zod';
import type { SagaTopic, ServiceName } from '../topics/topic-names';

/**
 * One event type of the pipeline: its name (the `ce_type` header), schema version, topic,
 * producing service, record key and payload schema. Defined once, here; the services, the
 * messaging library and the AsyncAPI document all read it.
 */
export interface EventDescriptor<TType extends string = string, TSchema extends z.ZodType = z.ZodType> {
  /** The CloudEvents `type`, e.g. `order.placed`. */
  readonly type: TType;
  /** Payload schema version, in `ce_dataschema` (`urn:order-pipeline:<type>:v<version>`). */
  readonly version: number;
  readonly topic: SagaTopic;
  readonly producer: ServiceName;
  /** What the record key is (as in the TopicCatalogue), e.g. `order id`. */
  readonly key: string;
  /** The record key's format. */
  readonly keySchema: z.ZodType<string>;
  readonly description: string;
  /** The record value (JSON), a strict object: unknown fields are a violation. */
  readonly schema: TSchema;
  /** Set where a `null` value (a tombstone on a compacted topic) is legal; what it means. */
  readonly tombstone?: string;
}

/** Keeps the literal type of `type` and the exact schema type, and freezes the descriptor. */
export const defineEvent = <const TType extends string, TSchema extends z.ZodType>(
  descriptor: EventDescriptor<TType, TSchema>,
): EventDescriptor<TType, TSchema> => Object.freeze(descriptor);
