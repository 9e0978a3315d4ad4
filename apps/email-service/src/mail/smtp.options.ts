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
    // Well inside the consumer's 30 s transaction timeout: a hung server fails the send, which
    // is retried with backoff, instead of timing out the inbox transaction around it.
    connectionTimeout: 5_000,
    greetingTimeout: 5_000,
    socketTimeout: 15_000,
  };
}
