import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kafkaCliAvailability, locateKafkaCli } from './kafka-cli';

describe('the Kafka command-line tools', () => {
  const empty = mkdtempSync(join(tmpdir(), 'kafka-cli-spec-'));

  it('without java: unavailable, and says how to get it', () => {
    const availability = kafkaCliAvailability({ PATH: empty, PIPELINE_CACHE_DIR: empty });
    expect(availability).toMatchObject({
      available: false,
      reason: expect.stringContaining('java was not found') as unknown,
    });
    expect(availability.available === false && availability.howTo).toContain('npm run kafka:start');
  });

  it('with java but without the jars: names the folder it looked in', () => {
    const availability = kafkaCliAvailability({
      ...process.env,
      PIPELINE_CACHE_DIR: empty,
      KAFKA_VERSION: '4.1.2',
    });
    expect(availability).toMatchObject({
      available: false,
      reason: expect.stringContaining(join(empty, 'kafka-4.1.2', 'libs')) as unknown,
    });
  });

  it('finds the jars where npm run kafka:start puts them (this machine runs the broker from them)', () => {
    expect(locateKafkaCli()).toMatchObject({
      libs: expect.stringMatching(/order-pipeline\/kafka-[\d.]+\/libs$/) as unknown,
    });
  });
});
