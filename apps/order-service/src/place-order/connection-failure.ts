import { RetriableError } from '@pipeline/messaging';

/** Socket errors: the connection to the database, not the statement, failed. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
]);

/**
 * pg reports a lost or refused connection as a plain Error (a socket code, or "Connection
 * terminated"), which would be a 500. Marked SQLSTATE 08006 (connection_failure), `isUnavailable`
 * reads it as the database being unavailable: 503 with Retry-After, and the group commit does
 * not write the group again order by order (the outcome of a COMMIT cut off is unknown).
 * Errors the server answered (with their own SQLSTATE) pass unchanged.
 */
export function asConnectionFailure(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  const socket = typeof code === 'string' && SOCKET_CODES.has(code);
  if (!socket && !/^Connection terminated/.test(error.message)) return error;
  return new RetriableError(`database connection failed: ${error.message}`, { code: '08006', cause: error });
}
