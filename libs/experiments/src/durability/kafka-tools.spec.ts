import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterBrokers } from './cluster';
import { findKafkaTools, repositoryRoot } from './kafka-tools';

const dir = mkdtempSync(join(tmpdir(), 'kafka-tools-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakeJava(): string {
  const home = join(dir, 'jdk');
  mkdirSync(join(home, 'bin'), { recursive: true });
  writeFileSync(join(home, 'bin', 'java'), '#!/bin/sh\n');
  chmodSync(join(home, 'bin', 'java'), 0o755);
  return home;
}

describe('findKafkaTools', () => {
  it('finds java and the jars where infra/bin/lib/kafka-common.sh puts them', () => {
    const libs = join(dir, 'cache', 'kafka-9.9.9', 'libs');
    mkdirSync(libs, { recursive: true });
    for (const jar of ['kafka-tools-9.9.9.jar', 'kafka-clients-9.9.9.jar'])
      writeFileSync(join(libs, jar), '');
    const lookup = findKafkaTools(
      { JAVA_HOME: fakeJava(), PATH: '', PIPELINE_CACHE_DIR: join(dir, 'cache'), KAFKA_VERSION: '9.9.9' },
      __dirname,
    );
    expect(lookup.found && lookup.tools.java).toBe(join(dir, 'jdk', 'bin', 'java'));
    expect(lookup.found && lookup.tools.libs).toBe(libs);
    // This checkout's scripts, found from the source folder.
    expect(lookup.found && lookup.tools.kafkaSh).toBe(
      join(repositoryRoot(__dirname) ?? '-', 'infra/bin/kafka.sh'),
    );
  });

  it('says what is missing and how to get it', () => {
    const noJava = findKafkaTools({ PATH: join(dir, 'nowhere') });
    expect(noJava).toMatchObject({
      found: false,
      reason: expect.stringContaining('java not found') as unknown,
    });
    expect(!noJava.found && noJava.howTo).toContain('openjdk-17-jre-headless');
    const noJars = findKafkaTools({ JAVA_HOME: fakeJava(), PIPELINE_CACHE_DIR: join(dir, 'empty') });
    expect(!noJars.found && noJars.reason).toContain(join(dir, 'empty'));
    expect(!noJars.found && noJars.howTo).toContain('infra/bin/kafka.sh fetch');
  });

  it('knows no repository outside a checkout', () => {
    expect(repositoryRoot(dir)).toBeUndefined();
  });
});

describe('clusterBrokers', () => {
  it("are kafka.sh's cluster ports unless told otherwise", () => {
    expect(clusterBrokers({})).toEqual(['127.0.0.1:19092', '127.0.0.1:19093', '127.0.0.1:19094']);
    expect(clusterBrokers({ KAFKA_CLUSTER_PORT_BASE: '29092' })[2]).toBe('127.0.0.1:29094');
    expect(clusterBrokers({ KAFKA_CLUSTER_BROKERS: 'a:1, b:2' })).toEqual(['a:1', 'b:2']);
  });
});
