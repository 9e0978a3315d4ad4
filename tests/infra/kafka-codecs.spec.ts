/**
 * Every codec a Kafka producer may use, written and read by clients nobody here wrote, on the real
 * broker: librdkafka (Debian's kcat) and the Java client (Kafka's own console tools). Java's
 * snappy frames its blocks the xerial way, librdkafka's is raw; Java's lz4 is its own frame
 * writer; both zstd writers stream frames. Our clients (createKafka) must read all of them, and
 * what they write with each codec must be readable by both.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CompressionTypeOf, type CompressionName } from '@pipeline/kafka-codecs';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testProducer } from '../support/events';
import {
  KAFKA_BROKERS,
  createTestTopics,
  kcatProducerArgs,
  readTopic,
  testKafka,
  uniqueName,
} from '../support/kafka';
import { REPO_ROOT } from '../support/processes';

const exec = promisify(execFile);
const CODECS: readonly Exclude<CompressionName, 'none'>[] = ['gzip', 'snappy', 'lz4', 'zstd'];
/** Long enough that every codec really compresses (and frames) the batch. */
const values = [1, 2, 3].map((i) => `value-${i}-${'x'.repeat(200 + i)}`);
const lines = values.map((value, i) => `k${i + 1}:${value}`).join('\n') + '\n';

/** Runs `command` with `input` on stdin, bounded in time; returns its stdout. */
async function pipe(
  command: string,
  args: readonly string[],
  input: string,
  timeoutMs = 60_000,
): Promise<string> {
  const child = exec(command, [...args], { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
  child.child.stdin?.end(input);
  return (await child).stdout;
}

const kafkaTool = (tool: string) => join(REPO_ROOT, 'infra/bin', tool);

describe('compression codecs across clients (kcat, the Java client, kafkajs)', () => {
  let kafka: Kafka;
  let deleteTopics: () => Promise<void>;
  const runId = uniqueName('codecs').replaceAll('.', '-');
  const topic = (writer: string, codec: string) => `test.${runId}.${writer}.${codec}`;
  const writers = ['kcat', 'java', 'kafkajs'] as const;

  beforeAll(async () => {
    kafka = testKafka();
    const topics = writers.flatMap((writer) => CODECS.map((codec) => ({ name: topic(writer, codec) })));
    ({ deleteTopics } = await createTestTopics(kafka, topics));
  }, 60_000);

  afterAll(async () => {
    await deleteTopics?.();
  });

  it('reads with kafkajs what librdkafka (kcat) wrote with each codec, one batch of three records', async () => {
    for (const codec of CODECS) {
      await pipe('kcat', [...kcatProducerArgs(topic('kcat', codec), 0), '-K', ':', '-z', codec], lines);
      const records = await readTopic(kafka, topic('kcat', codec));
      expect(
        records.map((r) => [r.key?.toString(), r.value?.toString()]),
        codec,
      ).toEqual(values.map((value, i) => [`k${i + 1}`, value]));
    }
  }, 60_000);

  it("reads with kafkajs what the Java client's console producer wrote with each codec", async () => {
    await Promise.all(
      CODECS.map((codec) =>
        pipe(
          kafkaTool('kafka-console-producer.sh'),
          [
            '--bootstrap-server',
            KAFKA_BROKERS.join(','),
            '--topic',
            topic('java', codec),
            '--compression-codec',
            codec,
            '--property',
            'parse.key=true',
            '--property',
            'key.separator=:',
          ],
          lines,
        ),
      ),
    );
    for (const codec of CODECS) {
      const records = await readTopic(kafka, topic('java', codec));
      expect(
        records.map((r) => [r.key?.toString(), r.value?.toString()]),
        codec,
      ).toEqual(values.map((value, i) => [`k${i + 1}`, value]));
    }
  }, 120_000);

  it('writes with kafkajs, each codec, what kcat and the Java console consumer read back', async () => {
    const producer = testProducer(kafka);
    await producer.connect();
    try {
      for (const codec of CODECS)
        await producer.send({
          topic: topic('kafkajs', codec),
          compression: CompressionTypeOf[codec],
          messages: values.map((value, i) => ({ key: `k${i + 1}`, value })),
        });
    } finally {
      await producer.disconnect();
    }
    for (const codec of CODECS) {
      const read = await exec('kcat', [
        ...['-b', KAFKA_BROKERS.join(','), '-C', '-t', topic('kafkajs', codec)],
        ...['-o', 'beginning', '-e', '-q', '-f', '%k:%s\\n'],
      ]);
      expect(read.stdout, codec).toBe(lines);
    }
    const java = await exec(
      kafkaTool('kafka-console-consumer.sh'),
      [
        ...['--bootstrap-server', KAFKA_BROKERS.join(',')],
        ...['--include', `test\\.${runId}\\.kafkajs\\..*`, '--from-beginning'],
        ...['--max-messages', String(CODECS.length * values.length), '--timeout-ms', '30000'],
        ...['--property', 'print.key=true', '--property', 'key.separator=:'],
      ],
      { timeout: 60_000 },
    );
    const javaLines = java.stdout.trim().split('\n').sort();
    expect(javaLines).toEqual(CODECS.flatMap(() => lines.trim().split('\n')).sort());
  }, 120_000);
});
