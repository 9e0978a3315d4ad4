import { describe, expect, it } from 'vitest';
import { baseConfigSchema } from './base-config.schema';
import { ConfigError, loadConfig } from './load-config';

const schema = baseConfigSchema({ port: 3001 });
const valid = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/payment_service',
  KAFKA_BROKERS: '127.0.0.1:9092, 127.0.0.1:9093',
};

describe('loadConfig', () => {
  it('types and defaults a valid environment', () => {
    const config = loadConfig(schema, valid);
    expect(config.PORT).toBe(3001);
    expect(config.KAFKA_BROKERS).toEqual(['127.0.0.1:9092', '127.0.0.1:9093']);
    expect(config.KAFKA_TOPIC_PARTITIONS).toBe(6);
    expect(config.LOG_LEVEL).toBe('log');
  });

  it("defaults the consumer's fetch to the saga's (1 byte, 2 s) unless a service sets its own, and honours the environment", () => {
    const saga = loadConfig(schema, valid);
    expect([saga.KAFKA_FETCH_MIN_BYTES, saga.KAFKA_FETCH_MAX_WAIT_MS]).toEqual([1, 2000]);
    const offPath = baseConfigSchema({ port: 3003, fetchMinBytes: 65_536, fetchMaxWaitMs: 250 });
    const own = loadConfig(offPath, valid);
    expect([own.KAFKA_FETCH_MIN_BYTES, own.KAFKA_FETCH_MAX_WAIT_MS]).toEqual([65_536, 250]);
    const set = loadConfig(offPath, { ...valid, KAFKA_FETCH_MIN_BYTES: '1', KAFKA_FETCH_MAX_WAIT_MS: '500' });
    expect([set.KAFKA_FETCH_MIN_BYTES, set.KAFKA_FETCH_MAX_WAIT_MS]).toEqual([1, 500]);
  });

  it('honours PORT', () => {
    expect(loadConfig(schema, { ...valid, PORT: '4000' }).PORT).toBe(4000);
  });

  it('names every missing variable', () => {
    const error = captureError(() => loadConfig(schema, {}));
    expect(error.problems).toEqual(['DATABASE_URL is required', 'KAFKA_BROKERS is required']);
    expect(error.message).toBe('invalid environment: DATABASE_URL is required; KAFKA_BROKERS is required');
  });

  it('names an invalid variable with what it must be', () => {
    const error = captureError(() =>
      loadConfig(schema, { ...valid, DATABASE_URL: 'mysql://x/y', PORT: '70000' }),
    );
    expect(error.problems).toContain('DATABASE_URL must be a postgresql://user@host:port/database URL');
    expect(error.problems.some((problem) => problem.startsWith('PORT '))).toBe(true);
  });

  it('defaults the inbox retention to 8 days 5 minutes (retention.ms + segment.ms + the check) and refuses one shorter than a minute', () => {
    const config = loadConfig(schema, valid);
    expect(config.INBOX_RETENTION_MS).toBe(691_500_000);
    expect(config.INBOX_PRUNE_INTERVAL_MS).toBe(600_000);
    const error = captureError(() => loadConfig(schema, { ...valid, INBOX_RETENTION_MS: '7' }));
    expect(error.problems).toEqual([expect.stringMatching(/^INBOX_RETENTION_MS .*60000/)]);
  });

  it('provisions topics unless KAFKA_PROVISION_TOPICS is false, and refuses other values', () => {
    expect(loadConfig(schema, valid).KAFKA_PROVISION_TOPICS).toBe(true);
    expect(loadConfig(schema, { ...valid, KAFKA_PROVISION_TOPICS: 'true' }).KAFKA_PROVISION_TOPICS).toBe(
      true,
    );
    expect(loadConfig(schema, { ...valid, KAFKA_PROVISION_TOPICS: 'false' }).KAFKA_PROVISION_TOPICS).toBe(
      false,
    );
    const error = captureError(() => loadConfig(schema, { ...valid, KAFKA_PROVISION_TOPICS: 'no' }));
    expect(error.problems).toEqual(['KAFKA_PROVISION_TOPICS must be true or false']);
  });

  it('treats an empty value as missing', () => {
    const error = captureError(() => loadConfig(schema, { ...valid, DATABASE_URL: '' }));
    expect(error.problems).toEqual(['DATABASE_URL is required']);
  });
});

function captureError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
