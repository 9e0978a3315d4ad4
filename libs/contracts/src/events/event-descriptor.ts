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
  /**
   * The record value (JSON), a strict object: what a producer may write. Consumers read it
   * tolerantly (`readEvent` drops an unknown field), so an added optional field breaks nobody.
   */
  readonly schema: TSchema;
  /** Set where a `null` value (a tombstone on a compacted topic) is legal; what it means. */
  readonly tombstone?: string;
  /**
   * Older versions consumers still read, because records of them may still be on the topic (its
   * retention, a dead-letter replay). Producers write `version` only. See docs/contracts.md.
   */
  readonly previous?: readonly AcceptedVersion<z.infer<TSchema>>[];
}

/** An older payload version, and how a record of it becomes the current payload handlers see. */
export interface AcceptedVersion<TPayload = unknown> {
  readonly version: number;
  /** The schema that version had, frozen: the contract compatibility gate keeps it unchanged. */
  readonly schema: z.ZodType;
  /** Called with a payload valid against `schema`; the result is checked against the current schema. */
  readonly upcast: (payload: unknown) => TPayload;
}

/** Types `upcast` by the old schema. */
export const acceptedVersion = <TOld extends z.ZodType, TPayload>(
  version: number,
  schema: TOld,
  upcast: (payload: z.infer<TOld>) => TPayload,
): AcceptedVersion<TPayload> =>
  Object.freeze({ version, schema, upcast: (payload: unknown) => upcast(payload as z.infer<TOld>) });

/** Keeps the literal type of `type` and the exact schema type, and freezes the descriptor. */
export const defineEvent = <const TType extends string, TSchema extends z.ZodType>(
  descriptor: EventDescriptor<TType, TSchema>,
): EventDescriptor<TType, TSchema> => Object.freeze(descriptor);
