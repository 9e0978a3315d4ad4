import { describe, expect, it } from 'vitest';
import { classifyError, isDependencyOutage } from '@pipeline/messaging';
import { smtpFailure } from './smtp-failure';

const smtpError = (message: string, fields: Record<string, unknown>): Error =>
  Object.assign(new Error(message), fields);

describe('smtpFailure', () => {
  it('waits out a refused connection as an outage of the server', () => {
    const error = smtpFailure(smtpError('connect ECONNREFUSED 127.0.0.1:1', { code: 'ECONNECTION' }));
    expect(classifyError(error)).toBe('retriable');
    expect(isDependencyOutage(error)).toBe(true);
    expect(error.code).toBe('SMTP_UNAVAILABLE');
    expect(error.message).toContain('ECONNECTION');
  });

  it('retries a 4xx "try again later"', () => {
    const error = smtpFailure(smtpError('Mailbox busy', { code: 'EENVELOPE', responseCode: 451 }));
    expect(classifyError(error)).toBe('retriable');
  });

  it('dead-letters a 5xx permanent rejection at once', () => {
    const error = smtpFailure(smtpError('No such user', { code: 'EENVELOPE', responseCode: 550 }));
    expect(classifyError(error)).toBe('fatal');
    expect(isDependencyOutage(error)).toBe(false);
    expect(error.code).toBe('SMTP_REJECTED');
  });
});
