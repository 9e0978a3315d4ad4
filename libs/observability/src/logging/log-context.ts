import { AsyncLocalStorage } from 'node:async_hooks';

// What a consumer asks per event, in one file: the fields on its log lines and whether its trace
// is sampled (the consumer path of docs/messaging.md enters no other file of this library).

/** Fields that every log line written while handling one event carries. */
export interface LogContext {
  readonly event_id?: string;
  readonly event_type?: string;
  readonly order_id?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with `fields` added to every log line it (and what it awaits) writes. */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  const outer = storage.getStore();
  return storage.run(outer === undefined ? fields : { ...outer, ...fields }, fn);
}

export const currentLogContext = (): LogContext | undefined => storage.getStore();

/**
 * Whether a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`) is sampled: bit 0 of the flags.
 * The consumer and the relay create spans only for sampled traces, so at a 1 % ratio 99 % of the
 * events cost no span, no attribute and no database span at all.
 */
export function isSampled(traceparent: string | undefined): boolean {
  if (traceparent === undefined || traceparent.length < 55) return false;
  return (Number.parseInt(traceparent.slice(53, 55), 16) & 1) === 1;
}
