import { Logger } from '@nestjs/common';
import { logLevel } from 'kafkajs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nestLogCreator } from './kafka-logger';

const entry = (level: logLevel, message: string) => ({
  namespace: 'Producer',
  level,
  label: 'WARN',
  log: { message, timestamp: new Date().toISOString() },
});

describe('nestLogCreator', () => {
  afterEach(() => vi.restoreAllMocks());

  it('logs a kafkajs warning at warn, and the idempotent-retries warning (a chosen bound) at debug', () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const debug = vi.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
    const log = nestLogCreator(logLevel.DEBUG);

    log(entry(logLevel.WARN, 'Limiting retries for the idempotent producer may invalidate EoS guarantees'));
    expect(warn).not.toHaveBeenCalled();
    expect(debug).toHaveBeenCalledWith(expect.stringContaining('[Producer] Limiting retries'));

    log(entry(logLevel.WARN, 'Response Metadata(key: 3, version: 6) took too long'));
    expect(warn).toHaveBeenCalledWith('[Producer] Response Metadata(key: 3, version: 6) took too long');
  });
});
