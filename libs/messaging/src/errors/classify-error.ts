import { messageOf } from '@pipeline/observability';
import {
  DatabaseUnavailableError,
  DependencyUnavailableError,
  PipelineError,
  type ErrorClass,
} from './pipeline-error';

/**
 * Prisma error codes that describe the data, not the moment: retrying the same event gives the
 * same answer. P2000 value too long, P2002 unique, P2003 foreign key, P2004 constraint, P2011 null,
 * P2012 missing value, P2014 relation, P2020 out of range, P2023 inconsistent column data.
 */
const FATAL_PRISMA_CODES = new Set('P2000 P2002 P2003 P2004 P2011 P2012 P2014 P2020 P2023'.split(' '));

/** Programmer errors: the same code fails the same way on every attempt. */
const PROGRAMMER_ERRORS = new Set(['TypeError', 'ReferenceError', 'SyntaxError', 'RangeError']);

/**
 * The one place that decides whether a failure is worth retrying. Explicit flags win; programmer
 * errors, schema violations and constraint violations are fatal; everything else (connection
 * loss, timeouts, deadlocks, errors nobody classified) is retriable, because dead-lettering a
 * record that would have succeeded a second later is worse than retrying one that will not.
 */
export function classifyError(error: unknown): ErrorClass {
  if (error instanceof PipelineError) return error.errorClass;
  if (!isObject(error)) return 'retriable';
  if (typeof error.retriable === 'boolean') return error.retriable ? 'retriable' : 'fatal';
  const name = typeof error.name === 'string' ? error.name : '';
  const zod = (name === 'ZodError' || name === '$ZodError') && Array.isArray(error.issues);
  if (PROGRAMMER_ERRORS.has(name) || zod) return 'fatal';
  if (name === 'PrismaClientValidationError') return 'fatal';
  if (name === 'PrismaClientKnownRequestError') return classifyPrismaCode(error);
  const sqlState = postgresSqlState(error);
  if (sqlState !== undefined) return classifySqlState(sqlState);
  return 'retriable';
}

function classifyPrismaCode(error: Record<string, unknown>): ErrorClass {
  const code = typeof error.code === 'string' ? error.code : '';
  if (FATAL_PRISMA_CODES.has(code)) return 'fatal';
  // P2010: a raw query failed; the database's own SQLSTATE (driver adapters put it in meta) decides.
  const sqlState = postgresSqlState(error.meta);
  return sqlState === undefined ? 'retriable' : classifySqlState(sqlState);
}

/** SQLSTATE class 22 (data exception) and 23 (integrity constraint violation) are fatal. */
function classifySqlState(sqlState: string): ErrorClass {
  return sqlState.startsWith('22') || sqlState.startsWith('23') ? 'fatal' : 'retriable';
}

function postgresSqlState(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  for (const candidate of [
    value.code,
    value.originalCode,
    nested(value.driverAdapterError, 'originalCode'),
  ]) {
    if (typeof candidate === 'string' && /^[0-9A-Z]{5}$/.test(candidate) && !candidate.startsWith('P')) {
      return candidate;
    }
  }
  if (isObject(value.driverAdapterError)) return postgresSqlState(value.driverAdapterError.cause);
  return undefined;
}

const nested = (value: unknown, key: string): unknown => (isObject(value) ? value[key] : undefined);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017']);
/** Prisma driver adapters' error kinds for a database that cannot be talked to. */
const UNAVAILABLE_ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout']);
const UNAVAILABLE_NODE_CODES = new Set(
  'ECONNREFUSED ECONNRESET ETIMEDOUT EHOSTUNREACH ENOTFOUND EPIPE'.split(' '),
);

/**
 * What `pg` says (without a code) when its connection went away, its pool had none in time, or
 * the server stopped answering (`query_timeout`: Query read timeout; `connectionTimeoutMillis` of a
 * bare client: timeout expired).
 */
const PG_UNAVAILABLE_MESSAGES =
  /Connection terminated|connection is closed|Client has encountered a connection error|timeout exceeded when trying to connect|Cannot use a pool after calling end|Query read timeout|^timeout expired$/;

/**
 * Prisma's P2028 when no pooled connection freed up within `maxWait`. The same code also means
 * "transaction already closed" (a handler slower than the timeout), which is the record's own
 * failure, hence the message.
 */
const POOL_EXHAUSTED = { code: 'P2028', message: 'Unable to start a transaction' } as const;

/**
 * A retriable failure that is not the record's fault: the database (or the network to it) is
 * gone, or has no connection for us in time (the pool is exhausted). Dead-lettering would empty the topic into the dead-letter topic during an outage, so the
 * consumer stops and retries the batch instead. A socket error counts only inside a database
 * error: the same ECONNREFUSED from a handler's own call elsewhere is the record's failure, and
 * it is retried and then dead-lettered like any other.
 */
export function isUnavailable(error: unknown, insideDatabaseError = false): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (!isObject(error) || classifyError(error) === 'fatal') return false;
  const name = typeof error.name === 'string' ? error.name : '';
  if (name === 'PrismaClientInitializationError') return true;
  const code = typeof error.code === 'string' ? error.code : '';
  if (UNAVAILABLE_PRISMA_CODES.has(code)) return true;
  if (code === POOL_EXHAUSTED.code && String(error.message).includes(POOL_EXHAUSTED.message)) return true;
  const driverAdapterError = nested(error.meta, 'driverAdapterError');
  const adapterKind = nested(nested(driverAdapterError, 'cause'), 'kind');
  if (typeof adapterKind === 'string' && UNAVAILABLE_ADAPTER_KINDS.has(adapterKind)) return true;
  // Prisma's pg adapter rethrows pg's own Error with only `clientVersion` added.
  const databaseError =
    insideDatabaseError ||
    name.startsWith('PrismaClient') ||
    driverAdapterError !== undefined ||
    typeof error.clientVersion === 'string';
  if (databaseError && UNAVAILABLE_NODE_CODES.has(code)) return true;
  if (databaseError && PG_UNAVAILABLE_MESSAGES.test(String(error.message))) return true;
  const sqlState = postgresSqlState(error) ?? postgresSqlState(error.meta);
  // 08: connection exception; 57P01..57P03: the server is shutting down or not accepting.
  if (sqlState !== undefined && (sqlState.startsWith('08') || /^57P0[1-3]$/.test(sqlState))) return true;
  return error.cause !== undefined && error.cause !== error && isUnavailable(error.cause, databaseError);
}

/**
 * A dependency outside the database is down: a DependencyUnavailableError, or a socket that was
 * refused, reset or timed out anywhere in the cause chain (a handler's own call to another
 * service). Such an event waits out the consumer's outage window before it is dead-lettered.
 */
export function isDependencyOutage(error: unknown): boolean {
  if (error instanceof DependencyUnavailableError) return true;
  if (!isObject(error) || classifyError(error) === 'fatal') return false;
  if (typeof error.code === 'string' && UNAVAILABLE_NODE_CODES.has(error.code)) return true;
  return error.cause !== undefined && error.cause !== error && isDependencyOutage(error.cause);
}

/**
 * A deadlock or serialization failure with a concurrent transaction (another partition's chunk
 * locking the same rows in another order). Not the record's fault and always transient: the
 * record is retried until it passes, never dead-lettered for it.
 */
export function isConcurrencyConflict(error: unknown): boolean {
  if (!isObject(error)) return false;
  const sqlState = postgresSqlState(error) ?? postgresSqlState(error.meta);
  if (sqlState === '40P01' || sqlState === '40001') return true;
  return error.cause !== undefined && error.cause !== error && isConcurrencyConflict(error.cause);
}

/**
 * An error the database raised, as the caller should see it: a lost or refused connection (which
 * `pg` reports as a plain Error, a socket code or "Connection terminated"), a server shutting
 * down, or an exhausted pool becomes a DatabaseUnavailableError (retry later, 503 over HTTP);
 * anything else, e.g. a constraint violation, passes unchanged.
 */
export function asDatabaseError(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError || !isUnavailable(error, true)) return error;
  return new DatabaseUnavailableError(messageOf(error), { cause: error });
}
