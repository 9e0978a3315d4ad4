// Records with a chosen timestamp, written by the Java client. kcat cannot set a record's
// timestamp (librdkafka stamps the wall clock), so the far past and the far future come from
// Apache Kafka's own VerifiableProducer: the Java producer, from the jars the broker runs on.
import { spawn } from 'node:child_process';
import { KAFKA_BROKERS } from '../support/kafka';
import { REPO_ROOT } from '../support/processes';
import type { Position } from './kcat';

export type JavaWrite =
  | ({ readonly ok: true } & Position)
  | { readonly ok: false; readonly exception: string; readonly message: string };

interface ToolEvent {
  readonly name: string;
  readonly partition?: number;
  readonly offset?: number;
  readonly exception?: string;
  readonly message?: string;
}

/**
 * One record with CreateTime `createTimeMs`, no key and the value `0` (the tool writes counters:
 * JSON, but no CloudEvents headers), on the partition the Java client's partitioner picks.
 */
export async function writeWithJavaClient(topic: string, createTimeMs: number): Promise<JavaWrite> {
  const args = [
    ...['--bootstrap-server', KAFKA_BROKERS.join(','), '--topic', topic],
    ...['--max-messages', '1', '--message-create-time', String(createTimeMs)],
  ];
  // kafka_run_tool: java -cp '<the broker's jars>/*' <main class>, as infra/bin's tools run.
  const script =
    'source infra/bin/lib/kafka-common.sh && kafka_run_tool org.apache.kafka.tools.VerifiableProducer "$@"';
  const child = spawn('bash', ['-c', script, 'verifiable-producer', ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const events = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as ToolEvent);
  const sent = events.find((event) => event.name === 'producer_send_success');
  if (sent?.partition !== undefined && sent.offset !== undefined)
    return { ok: true, topic, partition: sent.partition, offset: String(sent.offset) };
  const failed = events.find((event) => event.name === 'producer_send_error');
  if (failed !== undefined)
    return { ok: false, exception: failed.exception ?? '', message: failed.message ?? '' };
  throw new Error(`VerifiableProducer exited with ${code}: ${stderr.slice(-2000)}`);
}
