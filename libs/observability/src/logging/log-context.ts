import { AsyncLocalStorage } from 'node:async_hooks';

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
