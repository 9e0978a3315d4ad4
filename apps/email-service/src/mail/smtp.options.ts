import { connect, type Socket } from 'node:net';
import { EMAIL_MAX_IN_FLIGHT } from '@pipeline/contracts';
import type SMTPPool from 'nodemailer/lib/smtp-pool';

/** Emails in flight at once, at most: one per pooled connection (the contract's resend bound). */
export const SMTP_POOL_CONNECTIONS = EMAIL_MAX_IN_FLIGHT;

/**
 * Turns `SMTP_URL` (`smtp://[user:pass@]host[:port]`, or `smtps://` for implicit TLS) into pooled
 * transport options. nodemailer would parse the URL itself, but then ignores every other option,
 * pooling included.
 */
export function smtpPoolOptions(smtpUrl: string): SMTPPool.Options {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  return {
    pool: true,
    host: url.hostname,
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    ...(url.username
      ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
      : {}),
    maxConnections: SMTP_POOL_CONNECTIONS,
    // Not for smtps://: nodemailer runs implicit TLS over a socket it connected itself.
    ...(secure ? {} : { getSocket: connectWithoutNagle }),
    // Well inside the consumer's 30 s transaction timeout: a hung server fails the send, which
    // is retried with backoff, instead of timing out the inbox transaction around it.
    connectionTimeout: 5_000,
    greetingTimeout: 5_000,
    socketTimeout: 15_000,
  };
}

/**
 * Opens a pooled SMTP connection with Nagle's algorithm off, which nodemailer has no option for.
 * It writes a message and its closing `<CRLF>.<CRLF>` in separate small writes; with Nagle on,
 * the closing line waits for the ACK of the message, which the server delays because it has
 * nothing to answer until that line comes: 40 ms per email on Linux, which capped 5 connections
 * at about 110 emails/s (BENCHMARKS.md).
 *
 * The socket is handed over at once, still connecting, and never as an error: nodemailer 7's pool
 * drops a connection whose `getSocket` failed from its count of open ones only when the
 * connection itself emits the error, so each failed `getSocket` would leak one of the five slots,
 * and after five failures (an SMTP outage) every send would wait forever. Handed over, a refused
 * or unanswered connection fails through nodemailer's own socket error, greeting and socket
 * timeouts, as without this hook.
 */
export function connectWithoutNagle(
  options: SMTPPool.Options,
  callback: (error: null, socketOptions: { connection: Socket }) => void,
): void {
  const socket = connect({ host: options.host, port: options.port ?? 587 });
  socket.setNoDelay(true);
  socket.setKeepAlive(true); // as nodemailer does for a socket it connects
  callback(null, { connection: socket });
}
