import { context, type Context } from '@opentelemetry/api';
import { contextFromHeaders, withLogContext } from '@pipeline/observability';
import type { PendingEvent } from './consumed-event';

/**
 * The event's ids on every log line `fn` writes, and a trace context: by default the record's own
 * (the span that sent it), or the given one (the span processing it).
 */
export function withEventLogContext<T>(
  event: PendingEvent,
  fn: () => T,
  traceContext: Context = contextFromHeaders(event.message.headers),
): T {
  const orderId = orderIdOf(event.payload);
  return context.with(traceContext, () =>
    withLogContext(
      {
        event_id: event.metadata.id,
        event_type: event.metadata.type,
        ...(orderId === undefined ? {} : { order_id: orderId }),
      },
      fn,
    ),
  );
}

/** The saga events all carry `orderId` in their payload. */
export const orderIdOf = (payload: unknown): string | undefined =>
  typeof payload === 'object' &&
  payload !== null &&
  'orderId' in payload &&
  typeof payload.orderId === 'string'
    ? payload.orderId
    : undefined;
