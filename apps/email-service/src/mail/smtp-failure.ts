import { DependencyUnavailableError, FatalError, type PipelineError } from '@pipeline/messaging';

/**
 * What a failed send means for the failure policy. A 5xx reply is the server's permanent "no"
 * (unknown mailbox, policy rejection): sending again gives the same answer, so it is fatal and
 * dead-lettered at once. Everything else (connection refused, timeouts, 4xx "try again later")
 * means the server is unavailable: the partition waits with backoff for up to the consumer's
 * outage window (CONSUMER_RETRY_OUTAGE_WINDOW_MS, 2 minutes), then the email is dead-lettered.
 */
export function smtpFailure(error: unknown): PipelineError {
  const responseCode = numberField(error, 'responseCode');
  const message = error instanceof Error ? error.message : String(error);
  if (responseCode !== undefined && responseCode >= 500) {
    return new FatalError(`SMTP server rejected the email (${responseCode}): ${message}`, {
      code: 'SMTP_REJECTED',
      cause: error,
    });
  }
  const code = stringField(error, 'code');
  return new DependencyUnavailableError(`SMTP send failed${code ? ` (${code})` : ''}: ${message}`, {
    code: 'SMTP_UNAVAILABLE',
    cause: error,
  });
}

function numberField(value: unknown, key: string): number | undefined {
  if (typeof value !== 'object' || value === null || !(key in value)) return undefined;
  const field: unknown = (value as Record<string, unknown>)[key];
  return typeof field === 'number' ? field : undefined;
}

function stringField(value: unknown, key: string): string | undefined {
  if (typeof value !== 'object' || value === null || !(key in value)) return undefined;
  const field: unknown = (value as Record<string, unknown>)[key];
  return typeof field === 'string' ? field : undefined;
}
