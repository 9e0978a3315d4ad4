// Records written with kcat (librdkafka, the C client under most non-Java Kafka tools), run as a
// user would run it: one process per record, so every record is its own produce request and its
// own record batch, compressed with the codec asked for.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KAFKA_BROKERS } from '../support/kafka';
import { eventually } from '../support/processes';

export type Codec = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

/** A header as kcat writes it: text, bytes that need not be UTF-8, or null (`-H name`). */
export type KcatHeader = readonly [name: string, value: string | Buffer | null];

export interface KcatRecord {
  readonly topic: string;
  readonly partition: number;
  readonly key: string | null;
  /** `null` writes a null value (a tombstone); an empty string an empty one. */
  readonly value: string | Buffer | null;
  readonly headers?: readonly KcatHeader[];
  readonly codec?: Codec;
  /** Written in a transaction of this id, committed once the record is sent. */
  readonly transactionalId?: string;
}

export interface Position {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

/** The broker (or librdkafka) refused the record: nothing was written. */
export class KcatRefused extends Error {}

const BROKERS = KAFKA_BROKERS.join(',');
// librdkafka refuses values over 1,000,000 bytes before the broker sees them; let the broker judge.
const MAX_MESSAGE_BYTES = 'message.max.bytes=4000000';
// Not the user's ~/.config/kcat.conf: only what a case asks for.
const NO_CONFIG = ['-F', '/dev/null'];
const DELIVERED = /Message delivered to partition (\d+) \(offset (\d+)\)/;
const FAILED = /Delivery failed for message: (.*)/;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

interface RunOptions {
  readonly stdin?: string;
  readonly binaryHeaders?: readonly (readonly [string, Buffer])[];
}

/**
 * kcat with `args`. Header values that are not text go through bash's printf: Node passes
 * arguments as UTF-8, so bytes such as 0xff could not reach kcat any other way (NUL cannot at all).
 */
function kcat(args: readonly string[], { stdin, binaryHeaders = [] }: RunOptions = {}): Promise<Run> {
  const env: Record<string, string | undefined> = { ...process.env };
  const extra = binaryHeaders.map(([name, bytes], index) => {
    env[`KCAT_HEADER_${index}`] =
      `${name}=${[...bytes].map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('')}`;
    return `-H "$(printf %b "$KCAT_HEADER_${index}")"`;
  });
  const script = `exec kcat ${NO_CONFIG.join(' ')} "$@" ${extra.join(' ')}`;
  const child = spawn('bash', ['-c', script, 'kcat', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const run = spawned(child);
  child.stdin.end(stdin ?? '');
  return run;
}

function spawned(child: ReturnType<typeof spawn>): Promise<Run> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function producerArgs(record: Pick<KcatRecord, 'topic' | 'partition' | 'codec' | 'transactionalId'>) {
  const args = [
    '-P',
    '-b',
    BROKERS,
    '-t',
    record.topic,
    '-p',
    String(record.partition),
    '-X',
    MAX_MESSAGE_BYTES,
  ];
  if (record.codec !== undefined && record.codec !== 'none') args.push('-z', record.codec);
  if (record.transactionalId !== undefined) args.push('-X', `transactional.id=${record.transactionalId}`);
  // -v -v: kcat reports each delivery with its partition and offset.
  return [...args, '-v', '-v'];
}

function headerArgs(headers: readonly KcatHeader[]) {
  const args: string[] = [];
  const binary: [string, Buffer][] = [];
  for (const [name, value] of headers) {
    if (value === null) args.push('-H', name);
    else if (typeof value === 'string') args.push('-H', `${name}=${value}`);
    else binary.push([name, value]);
  }
  return { args, binary };
}

/** Writes one record; resolves with where it landed, or rejects with KcatRefused. */
export async function writeWithKcat(record: KcatRecord): Promise<Position> {
  const headers = headerArgs(record.headers ?? []);
  const args = [...producerArgs(record), ...headers.args];
  let run: Run;
  const { value } = record;
  if (value !== null && value.length > 0) {
    // A file is one message whatever its bytes; kcat takes the key from -k (none: a null key).
    const dir = await mkdtemp(join(tmpdir(), 'kcat-'));
    try {
      await writeFile(join(dir, 'value'), value);
      const keyArgs = record.key === null ? [] : ['-k', record.key];
      run = await kcat([...args, ...keyArgs, join(dir, 'value')], { binaryHeaders: headers.binary });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  } else {
    // "key<TAB>" on stdin: an empty value; with -Z an empty key or value is written as null.
    const nulls = value === null ? ['-Z'] : [];
    if (value !== null && record.key === null) throw new Error('kcat writes an empty value with a key only');
    run = await kcat([...args, '-K', '\\t', ...nulls], {
      stdin: `${record.key ?? ''}\t`,
      binaryHeaders: headers.binary,
    });
  }
  return positionOf(record.topic, run);
}

function positionOf(topic: string, run: Run): Position {
  const delivered = DELIVERED.exec(run.stderr);
  if (delivered !== null && run.code === 0)
    return { topic, partition: Number(delivered[1]), offset: delivered[2]! };
  const failed = FAILED.exec(run.stderr);
  if (failed !== null) throw new KcatRefused(failed[1]);
  throw new Error(`kcat exited with ${run.code}: ${run.stderr.slice(-2000)}`);
}

export interface AbortedTransaction {
  readonly topic: string;
  readonly partition: number;
  readonly transactionalId: string;
  /** Every record carries these headers (kcat's -H applies to all records of a run). */
  readonly headers: readonly KcatHeader[];
  /** One line each: neither may hold a tab or a newline. */
  readonly records: readonly { readonly key: string; readonly value: string }[];
  /** The partition's end offset before: the records are looked for from there. */
  readonly fromOffset: string;
}

/**
 * Records of a transaction that a producer left open and its successor aborted: kcat writes them
 * in a transaction and is killed before it commits; a second kcat with the same
 * `transactional.id` starts, and the coordinator aborts the first one's transaction (fencing),
 * writing its abort markers. What a crashed and restarted transactional producer leaves behind.
 */
export async function writeAbortedTransaction(transaction: AbortedTransaction): Promise<Position[]> {
  const { topic, partition, transactionalId } = transaction;
  const headers = headerArgs(transaction.headers);
  if (headers.binary.length > 0) throw new Error('binary headers are not supported here');
  const args = [...producerArgs({ topic, partition, transactionalId }), ...headers.args, '-K', '\\t'];
  const child = spawn('kcat', [...NO_CONFIG, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const run = spawned(child);
  // kcat hands a line on only once a further read of its input returns, and stdin stays open
  // (closing it would commit): an unfinished last line, never sent, lets every record through.
  const lines = transaction.records.map((record) => `${record.key}\t${record.value}\n`).join('');
  child.stdin.write(lines + 'x'.repeat(16 * 1024));
  try {
    const keys = new Set(transaction.records.map((record) => record.key));
    const written = await eventually(
      async () => {
        const found = (await uncommittedKeys(topic, partition, transaction.fromOffset)).filter((record) =>
          keys.has(record.key),
        );
        return found.length === keys.size ? found : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: `the open transaction's records on ${topic}/${partition}` },
    );
    child.kill('SIGKILL');
    await run;
    // The successor: InitProducerId fences the old epoch, and the coordinator aborts its transaction.
    const successor = await kcat([...producerArgs({ topic, partition, transactionalId }), '-K', '\\t']);
    if (successor.code !== 0)
      throw new Error(`fencing kcat exited with ${successor.code}: ${successor.stderr}`);
    return written.map((record) => ({ topic, partition, offset: record.offset }));
  } finally {
    child.kill('SIGKILL');
  }
}

/** Offsets and keys on a partition from `fromOffset`, uncommitted records included. */
async function uncommittedKeys(topic: string, partition: number, fromOffset: string) {
  const run = await kcat([
    ...['-C', '-b', BROKERS, '-t', topic, '-p', String(partition), '-o', fromOffset, '-e', '-q'],
    ...['-X', 'isolation.level=read_uncommitted', '-f', '%o %k\\n'],
  ]);
  if (run.code !== 0) throw new Error(`kcat exited with ${run.code}: ${run.stderr}`);
  return run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [offset = '', key = ''] = line.split(' ');
      return { offset, key };
    });
}

export interface ReadRecord {
  readonly partition: number;
  readonly offset: string;
  /** Name and value, in order; a null value stays null. */
  readonly headers: readonly (readonly [string, string | null])[];
}

/** Every committed record of `topic`, read from the beginning with kcat (not with the client under test). */
export async function readWithKcat(topic: string): Promise<ReadRecord[]> {
  const run = await kcat(['-C', '-b', BROKERS, '-t', topic, '-o', 'beginning', '-e', '-q', '-J']);
  if (run.code !== 0) throw new Error(`kcat exited with ${run.code} reading ${topic}: ${run.stderr}`);
  return run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const record = JSON.parse(line) as { partition: number; offset: number; headers?: (string | null)[] };
      const flat = record.headers ?? [];
      const headers: [string, string | null][] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) headers.push([flat[i] ?? '', flat[i + 1] ?? null]);
      return { partition: record.partition, offset: String(record.offset), headers };
    });
}

/** The first value of header `name` (null when it is null, undefined when absent). */
export const headerOf = (record: ReadRecord, name: string): string | null | undefined =>
  record.headers.find(([candidate]) => candidate === name)?.[1];
