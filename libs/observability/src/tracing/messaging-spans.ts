import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import { messageOf } from '../logging/message-of';

/**
 * Messaging spans after the OpenTelemetry semantic conventions (messaging, Kafka). The names are
 * written out rather than imported from the conventions' `incubating` entry point, which its
 * authors ask libraries not to depend on.
 */
export const MessagingAttributes = {
  system: 'messaging.system',
  destination: 'messaging.destination.name',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  partition: 'messaging.destination.partition.id',
  offset: 'messaging.kafka.offset',
  consumerGroup: 'messaging.consumer.group.name',
  messageId: 'messaging.message.id',
  key: 'messaging.kafka.message.key',
  tombstone: 'messaging.kafka.message.tombstone',
  batchCount: 'messaging.batch.message_count',
  eventType: 'cloudevents.event_type',
} as const;

// The spans' instrumentation scope (otel.scope.name) stays the library whose runtime they trace.
const tracer = trace.getTracer('@pipeline/messaging');

/** Kafka header values are Buffers (or arrays of them); an outbox row's are JSON values. */
type HeaderValue = unknown;

/** Reads W3C trace context from Kafka record headers (Buffers) or an outbox row's JSON headers. */
const headerGetter: TextMapGetter<Record<string, HeaderValue>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    if (value === null || value === undefined) return undefined;
    const text = (item: unknown): string =>
      Buffer.isBuffer(item) ? item.toString('utf8') : `${item as string}`;
    return Array.isArray(value) ? value.map(text) : text(value);
  },
};

/** The remote trace context a record or row carries; the root context when it carries none. */
export function contextFromHeaders(headers: Record<string, HeaderValue> | null | undefined): Context {
  return headers ? propagation.extract(ROOT_CONTEXT, headers, headerGetter) : ROOT_CONTEXT;
}

/** What every messaging span says about the record it is about. */
interface RecordSpanInit {
  readonly topic: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly key: string | null;
}

function recordAttributes(operation: 'send' | 'process', init: RecordSpanInit): Attributes {
  return {
    [MessagingAttributes.system]: 'kafka',
    [MessagingAttributes.destination]: init.topic,
    [MessagingAttributes.operationType]: operation,
    [MessagingAttributes.operationName]: operation,
    [MessagingAttributes.messageId]: init.eventId,
    [MessagingAttributes.eventType]: init.eventType,
    ...(init.key === null ? {} : { [MessagingAttributes.key]: init.key }),
  };
}

export interface SendSpanInit extends RecordSpanInit {
  readonly tombstone: boolean;
}

/**
 * A PRODUCER span `send <topic>` continuing the trace of the transaction that wrote the outbox
 * row; its context is what the record carries on, so the consumer's span is its child.
 */
export function startSendSpan(parent: Context, init: SendSpanInit): Span {
  const attributes = recordAttributes('send', init);
  if (init.tombstone) attributes[MessagingAttributes.tombstone] = true;
  return tracer.startSpan(`send ${init.topic}`, { kind: SpanKind.PRODUCER, attributes }, parent);
}

export interface ProcessSpanInit extends RecordSpanInit {
  readonly partition: number;
  readonly offset: string;
  readonly group: string;
  readonly attempt: number;
}

/**
 * A CONSUMER span `process <topic>` as the child (not only a link) of the span that sent the
 * record, so one order is one trace across services.
 */
export function startProcessSpan(parent: Context, init: ProcessSpanInit): Span {
  const attributes: Attributes = {
    ...recordAttributes('process', init),
    [MessagingAttributes.partition]: String(init.partition),
    [MessagingAttributes.offset]: Number(init.offset),
    [MessagingAttributes.consumerGroup]: init.group,
    'pipeline.attempt': init.attempt,
  };
  return tracer.startSpan(`process ${init.topic}`, { kind: SpanKind.CONSUMER, attributes }, parent);
}

/**
 * Ends a span, marking it failed when `failure` is given (`{ error }`, so that even a thrown
 * `undefined` counts). Never throws: it runs in the handler's catch, where a TypeError of its own
 * would replace the handler's error.
 */
export function endSpan(span: Span, failure?: { readonly error: unknown }): void {
  if (failure !== undefined) {
    const { error } = failure;
    span.recordException(error instanceof Error ? error : messageOf(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(error) });
  }
  span.end();
}

/** `traceparent`/`tracestate` of a span's context, to put on the record it sends. */
export function spanHeaders(span: Span): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier;
}
