import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kafkaCliAvailability, kafkaToolCommand, locateKafkaCli, repositoryRoot } from './kafka-cli';

const dir = mkdtempSync(join(tmpdir(), 'kafka-cli-spec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakeJava(): string {
  const home = join(dir, 'jdk');
  mkdirSync(join(home, 'bin'), { recursive: true });
  writeFileSync(join(home, 'bin', 'java'), '#!/bin/sh\n');
  chmodSync(join(home, 'bin', 'java'), 0o755);
  return home;
}

describe('the Kafka command-line tools', () => {
  it('finds java and the jars where infra/bin/lib/kafka-common.sh puts them', () => {
    const libs = join(dir, 'cache', 'kafka-9.9.9', 'libs');
    mkdirSync(libs, { recursive: true });
    for (const jar of ['kafka-tools-9.9.9.jar', 'kafka-clients-9.9.9.jar'])
      writeFileSync(join(libs, jar), '');
    const tools = locateKafkaCli(
      { JAVA_HOME: fakeJava(), PATH: '', PIPELINE_CACHE_DIR: join(dir, 'cache'), KAFKA_VERSION: '9.9.9' },
      __dirname,
    );
    const root = repositoryRoot(__dirname) ?? '-';
    expect(tools).toEqual({
      java: join(dir, 'jdk', 'bin', 'java'),
      libs,
      // This checkout's scripts, found from the source folder.
      log4jConfig: join(root, 'infra/kafka/tools-log4j2.xml'),
      kafkaSh: join(root, 'infra/bin/kafka.sh'),
    });
    if ('missing' in tools) throw new Error(tools.missing);
    expect(kafkaToolCommand(tools, 'Main', ['--x'], ['-Xmx1m'])).toEqual([
      '-Xmx1m',
      `-Dlog4j2.configurationFile=${join(root, 'infra/kafka/tools-log4j2.xml')}`,
      '-cp',
      join(libs, '*'),
      'Main',
      '--x',
    ]);
  });

  it('without java: unavailable, and says how to get it', () => {
    const availability = kafkaCliAvailability({ PATH: join(dir, 'nowhere'), PIPELINE_CACHE_DIR: dir });
    expect(availability).toMatchObject({
      available: false,
      reason: expect.stringContaining('java was not found') as unknown,
    });
    expect(availability.available === false && availability.howTo).toContain('openjdk-17-jre-headless');
    expect(availability.available === false && availability.howTo).toContain('npm run kafka:start');
  });

  it('with java but without the jars: names the folder it looked in', () => {
    const availability = kafkaCliAvailability({
      JAVA_HOME: fakeJava(),
      PIPELINE_CACHE_DIR: join(dir, 'empty'),
    });
    expect(availability).toMatchObject({
      available: false,
      reason: expect.stringContaining(join(dir, 'empty', 'kafka-4.1.2', 'libs')) as unknown,
    });
  });

  it('finds the jars where npm run kafka:start puts them (this machine runs the broker from them)', () => {
    expect(locateKafkaCli()).toMatchObject({
      libs: expect.stringMatching(/order-pipeline\/kafka-[\d.]+\/libs$/) as unknown,
    });
  });

  it('knows no repository outside a checkout', () => {
    expect(repositoryRoot(dir)).toBeUndefined();
  });
});
