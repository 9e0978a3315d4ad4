import { connect, type Socket } from 'node:net';
import { EMAIL_MAX_IN_FLIGHT } from '@pipeline/contracts';
import type SMTPPool from 'nodemailer/lib/smtp-pool';

/** Emails in flight at once, at most: one per pooled connection (the contract's resend bound). */
export const SMTP_POOL_CONNECTIONS = EMAIL_MAX_IN_FLIGHT;

const CONNECTION_TIMEOUT_MS = 5_000;

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
    getSocket: connectWithoutNagle,
    // Well inside the consumer's 30 s transaction timeout: a hung server fails the send, which
    // is retried with backoff, instead of timing out the inbox transaction around it.
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: 5_000,
    socketTimeout: 15_000,
  };
}

/**
 * Connects a pooled SMTP connection with Nagle's algorithm off, which nodemailer has no option
 * for. It writes a message and its closing `<CRLF>.<CRLF>` in separate small writes; with Nagle
 * on, the closing line waits for the ACK of the message, which the server delays because it has
 * nothing to answer until that line comes: 40 ms per email on Linux, which capped 5 connections
 * at about 110 emails/s (BENCHMARKS.md). nodemailer runs SMTP, and implicit TLS for `smtps://`,
 * over the socket handed to it as `connection`; its own timeouts apply from then on.
 */
export function connectWithoutNagle(
  options: SMTPPool.Options,
  callback: (error: Error | null, socketOptions?: { connection: Socket }) => void,
): void {
  const { host = 'localhost', port = 587 } = options;
  const timeoutMs = options.connectionTimeout ?? CONNECTION_TIMEOUT_MS;
  const socket = connect({ host, port });
  let settled = false;
  const settle = (error: Error | null): void => {
    if (settled) return;
    settled = true;
    socket.setTimeout(0);
    socket.off('error', settle);
    if (error) {
      socket.destroy();
      callback(error);
      return;
    }
    socket.setNoDelay(true);
    callback(null, { connection: socket });
  };
  socket.once('error', settle);
  socket.once('connect', () => settle(null));
  socket.setTimeout(timeoutMs, () =>
    settle(
      Object.assign(new Error(`no connection to ${host}:${port} within ${timeoutMs} ms`), {
        code: 'ETIMEDOUT',
      }),
    ),
  );
}
