import { RpcException } from '@nestjs/microservices';

export type ErrorClass = 'retriable' | 'fatal';

export interface PipelineErrorOptions {
  readonly cause?: unknown;
}

/**
 * Base of the errors a handler (or the library) throws on purpose. The `code` is stable (logs,
 * metrics and alerts key on it; the message is for people); `retriable` decides the failure
 * policy. It extends Nest's RpcException and returns itself from `getError()`, as Nest's own
 * KafkaRetriableException does, so Nest's default exception filter hands it back unchanged
 * instead of replacing it with "Internal server error".
 */
export class PipelineError extends RpcException {
  override readonly name: string = 'PipelineError';
  override readonly cause?: unknown;

  constructor(
    readonly code: string,
    message: string,
    readonly retriable: boolean,
    options: PipelineErrorOptions = {},
  ) {
    super(message);
    if (options.cause !== undefined) this.cause = options.cause;
  }

  override getError(): this {
    return this;
  }

  get errorClass(): ErrorClass {
    return this.retriable ? 'retriable' : 'fatal';
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      retriable: this.retriable,
      ...(this.cause === undefined ? {} : { cause: describeCause(this.cause) }),
    };
  }
}

/** A failure that may succeed later (a dependency is down, a lock timed out): retried with backoff. */
export class RetriableError extends PipelineError {
  override readonly name: string = 'RetriableError';

  constructor(message: string, options: PipelineErrorOptions & { code?: string } = {}) {
    super(options.code ?? 'RETRIABLE', message, true, options);
  }
}

/** A failure that will fail again however often it is retried: dead-lettered at once. */
export class FatalError extends PipelineError {
  override readonly name: string = 'FatalError';

  constructor(message: string, options: PipelineErrorOptions & { code?: string } = {}) {
    super(options.code ?? 'FATAL', message, false, options);
  }
}

/**
 * The database cannot be talked to (connection refused or lost, server shutting down, no pooled
 * connection in time). No event's fault: the consumer retries the whole batch, never dead-letters.
 */
export class DatabaseUnavailableError extends RetriableError {
  override readonly name: string = 'DatabaseUnavailableError';

  constructor(message: string, options: PipelineErrorOptions = {}) {
    super(`database unavailable: ${message}`, { ...options, code: 'DATABASE_UNAVAILABLE' });
  }
}

/**
 * Something the handler depends on outside the database cannot be reached (an SMTP server, an
 * HTTP API): no fault of the event. Its partition waits with backoff for up to the consumer's
 * outage window (`CONSUMER_RETRY_OUTAGE_WINDOW_MS`) before the event is dead-lettered.
 */
export class DependencyUnavailableError extends RetriableError {
  override readonly name: string = 'DependencyUnavailableError';

  constructor(message: string, options: PipelineErrorOptions & { code?: string } = {}) {
    super(message, { ...options, code: options.code ?? 'DEPENDENCY_UNAVAILABLE' });
  }
}

function describeCause(cause: unknown): unknown {
  if (cause instanceof PipelineError) return cause.toJSON();
  if (cause instanceof Error) return { name: cause.name, message: cause.message };
  return String(cause);
}

/**
 * A record batch the consumer cannot decode, with undecodable batches set to `stop`: it fails the
 * fetch on purpose, so the group halts at the batch (crash, restart with backoff, liveness down
 * after the stall timeout) until a person acts. Not retriable: kafkajs gives up at once.
 */
export class UndecodableBatchError extends PipelineError {
  override readonly name: string = 'UndecodableBatchError';

  constructor(message: string) {
    super('UNDECODABLE_BATCH', message, false);
  }
}
