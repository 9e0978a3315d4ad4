import { describe, expect, it } from 'vitest';
import { loadConfig } from '@pipeline/service-kit';
import { emailConfigSchema } from './config';

describe('email-service configuration', () => {
  it('batches its fetches off the order path: up to 64 KiB or a quarter second', () => {
    const config = loadConfig(emailConfigSchema, {
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/email_service',
      KAFKA_BROKERS: '127.0.0.1:9092',
      SMTP_URL: 'smtp://127.0.0.1:1025',
    });
    expect(config.KAFKA_FETCH_MIN_BYTES).toBe(65_536);
    expect(config.KAFKA_FETCH_MAX_WAIT_MS).toBe(250);
  });
});
