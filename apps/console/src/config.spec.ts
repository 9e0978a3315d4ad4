import { describe, expect, it } from 'vitest';
import { loadConsoleConfig } from './config';

describe('loadConsoleConfig: the flow sampler and its caps', () => {
  it('defaults to a 5 s sample, 15 minutes of history, 20 streams and the services’ own groups', () => {
    const config = loadConsoleConfig({});
    expect(config).toMatchObject({ sampleIntervalMs: 5_000, historyPoints: 180, maxStreams: 20 });
    expect(config.groups).toEqual({
      order: 'order-service',
      payment: 'payment-service',
      inventory: 'inventory-service',
      email: 'email-service',
      analytics: 'analytics-service',
    });
  });

  it('takes each setting from its variable', () => {
    const config = loadConsoleConfig({
      CONSOLE_SAMPLE_INTERVAL_MS: '2000',
      CONSOLE_HISTORY_POINTS: '30',
      CONSOLE_MAX_STREAMS: '3',
      PAYMENT_SERVICE_GROUP: 'payments-blue',
    });
    expect(config).toMatchObject({ sampleIntervalMs: 2_000, historyPoints: 30, maxStreams: 3 });
    expect(config.groups.payment).toBe('payments-blue');
  });

  it('defaults the bounds of dead-letter pages, streams and live orders', () => {
    expect(loadConsoleConfig({})).toMatchObject({
      deadLetterPage: { size: 50, maxBytes: 4 * 1024 * 1024 },
      maxExperimentStreams: 50,
      streamMaxBufferedBytes: 1024 * 1024,
      maxEventsPerOrder: 32,
    });
    expect(
      loadConsoleConfig({ CONSOLE_DEAD_LETTER_PAGE_SIZE: '10', CONSOLE_DEAD_LETTER_PAGE_BYTES: '65536' })
        .deadLetterPage,
    ).toEqual({ size: 10, maxBytes: 65_536 });
    expect(() => loadConsoleConfig({ CONSOLE_DEAD_LETTER_PAGE_SIZE: '0' })).toThrow(
      /CONSOLE_DEAD_LETTER_PAGE_SIZE/,
    );
    expect(() => loadConsoleConfig({ CONSOLE_DEAD_LETTER_PAGE_BYTES: '100' })).toThrow(
      /CONSOLE_DEAD_LETTER_PAGE_BYTES/,
    );
  });

  it('names the variable that is out of range', () => {
    expect(() => loadConsoleConfig({ CONSOLE_SAMPLE_INTERVAL_MS: '10' })).toThrow(
      /CONSOLE_SAMPLE_INTERVAL_MS/,
    );
    expect(() => loadConsoleConfig({ CONSOLE_HISTORY_POINTS: '0' })).toThrow(/CONSOLE_HISTORY_POINTS/);
    expect(() => loadConsoleConfig({ CONSOLE_MAX_STREAMS: 'many' })).toThrow(/CONSOLE_MAX_STREAMS/);
  });
});
