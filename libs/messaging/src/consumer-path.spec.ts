import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import type { EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type pg from 'pg';
import { encodeHeaders, metadataOf, type EventContracts } from '@pipeline/contracts';
import { KafkaEventServer } from './nest/kafka-event-server';
import type { EventContext } from './handlers/event-batch';

const libs = path.resolve(__dirname, '../..');
const docs = path.resolve(libs, '../docs/messaging.md');

/**
 * What docs/messaging.md says of one record's path, between its consumer-path markers: the files
 * it enters, in order; its steps between them, by their numbers in that list; and, after the
 * list, how many files and how many steps back into one already entered ("returns").
 */
function documentedPath(): { files: string[]; steps: string; fileCount: number; returns: number } {
  const text = readFileSync(docs, 'utf8');
  const list = text.slice(
    text.indexOf('<!-- consumer-path:start -->'),
    text.indexOf('<!-- consumer-path:end -->'),
  );
  const counts = /That is \*\*(\d+)\s+files\s+and\s+(\d+)\s+returns\*\*/.exec(text);
  return {
    files: [...list.matchAll(/^\d+\. `([^`]+\.ts)`/gm)].map((match) => match[1]!),
    steps: /^Steps: ([\d →]+)$/m.exec(list)?.[1]?.trim() ?? 'no "Steps:" line',
    fileCount: Number(counts?.[1]),
    returns: Number(counts?.[2]),
  };
}

/** A record of a type the test contracts declare, ready before anything is measured. */
function recordAt(offset: string, commit: () => Promise<void>): EachBatchPayload {
  const payload = { offset };
  const metadata = metadataOf(
    { topic: 'things', key: 'k', type: 'thing.happened', payload, correlationId: 'c' },
    'test',
  );
  const message: KafkaMessage = {
    key: Buffer.from('k'),
    value: Buffer.from(JSON.stringify(payload)),
    timestamp: '0',
    attributes: 0,
    offset,
    headers: encodeHeaders(metadata),
  };
  return {
    batch: { topic: 'things', partition: 0, messages: [message], lastOffset: () => offset },
    resolveOffset: () => undefined,
    commitOffsetsIfNecessary: commit,
  } as unknown as EachBatchPayload;
}

/** The server over a broker client and a database connection that only answer what the path asks. */
async function serverUnderTest() {
  let eachBatch: ((payload: EachBatchPayload) => Promise<void>) | undefined;
  const consumer = {
    events: { GROUP_JOIN: 'j', CRASH: 'c', END_BATCH_PROCESS: 'e', REBALANCING: 'r' },
    on: () => undefined,
    connect: () => Promise.resolve(),
    subscribe: () => Promise.resolve(),
    run: (config: { eachBatch: typeof eachBatch }) => {
      eachBatch = config.eachBatch;
      return Promise.resolve();
    },
    disconnect: () => Promise.resolve(),
  };
  const client = {
    // The inbox claim answers every event new; every other statement affects nothing. A statement
    // comes as pg takes it: its text alone, or prepared, a config with its text and values.
    query: (statement: string | pg.QueryConfig) =>
      Promise.resolve(
        typeof statement !== 'string' && statement.text.startsWith('INSERT INTO inbox')
          ? { rows: (statement.values![1] as string[]).map((id) => ({ event_id: id })), rowCount: 1 }
          : { rows: [], rowCount: 0 },
      ),
    release: () => undefined,
    on: () => undefined,
    off: () => undefined,
  };
  const contracts: EventContracts = {
    isDeclaredFor: () => true,
    parseEvent: (type, value) => ({ ok: true, type, payload: value }),
  };
  const server = new KafkaEventServer({
    service: 'path',
    topics: ['things'],
    // The dead-letter producer is created up front, and used by no record here.
    kafka: { consumer: () => consumer, producer: () => ({}) } as unknown as Kafka,
    admin: {} as never,
    pool: { connect: () => Promise.resolve(client) } as unknown as pg.Pool,
    contracts,
    deadLetterTopic: 'path.dead-letter',
    commitIntervalMs: 0,
    logger: { log: () => undefined, warn: () => undefined, error: () => undefined },
  });
  // A handler as the saga's are: it publishes what the event caused.
  server.addHandler(
    'thing.happened',
    (_data: unknown, ctx: EventContext) => {
      ctx.publish({ topic: 'others', key: 'k', type: 'other.happened', payload: {} });
      return Promise.resolve();
    },
    true,
  );
  await new Promise<void>((resolve, reject) =>
    server.listen((error) =>
      error ? reject(error instanceof Error ? error : new Error('listen failed')) : resolve(),
    ),
  );
  return { eachBatch: eachBatch!, close: () => server.close() };
}

// vitest's module runner reads an imported binding through a getter in the exporting module:
// calling one is no step of the path.
const IMPORT_GETTER = /^\(\) => \{ try \{ return [\w.$]+ \} catch \{\} \}$/;

/** Where a function of a file under libs/ begins: the first place in it where V8 can pause. */
interface FunctionStart {
  readonly scriptId: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
  readonly file: string;
}

/**
 * A debugger on the test's thread, run from a worker (a thread cannot handle its own pauses:
 * `connectToMainThread`). It pauses at the start of every function it is given, notes the call
 * stack (each frame as its script and its function's position), and lets the thread go on.
 */
const STACK_WATCHER = `
const { parentPort } = require('node:worker_threads');
const { Session } = require('node:inspector');
const session = new Session();
session.connectToMainThread();
const post = (method, params) =>
  new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
const stacks = [];
session.on('Debugger.paused', ({ params }) => {
  stacks.push(params.callFrames.map(({ location, functionLocation: at, functionName }) =>
    [location.scriptId, at ? at.lineNumber + ':' + at.columnNumber : functionName]));
  session.post('Debugger.resume');
});
parentPort.on('message', async (starts) => {
  if (starts) {
    await post('Debugger.enable');
    for (const location of starts) await post('Debugger.setBreakpoint', { location });
    parentPort.postMessage('armed');
  } else {
    await post('Debugger.disable');
    parentPort.postMessage(stacks);
  }
});`;

/**
 * The steps between files while `run` runs, as the call stacks at the start of every function in
 * `starts` show them: from one pause to the next, back out of the frames that returned or awaited
 * (each caller goes on), down to the frame both stacks share, then into the frames of the new call.
 * Frames outside the files of `starts` (libraries, Node) are left out. What a function does after
 * an await without calling one of `starts` is seen only at the next pause.
 */
async function stepsBetweenFiles(starts: FunctionStart[], run: () => Promise<void>): Promise<string[]> {
  const fileOf = new Map(starts.map(({ scriptId, file }) => [scriptId, file]));
  const worker = new Worker(STACK_WATCHER, { eval: true });
  const answer = <T>() =>
    new Promise<T>((resolve, reject) => worker.once('message', resolve).once('error', reject));
  let stacks: [scriptId: string, at: string][][];
  try {
    worker.postMessage(
      starts.map(({ scriptId, lineNumber, columnNumber }) => ({ scriptId, lineNumber, columnNumber })),
    );
    await answer<'armed'>();
    await run();
    worker.postMessage(null);
    stacks = await answer<typeof stacks>();
  } finally {
    await worker.terminate();
  }
  const steps: string[] = [];
  const step = (file: string) => steps.at(-1) !== file && steps.push(file);
  let before: { file: string; at: string }[] = [];
  for (const stack of stacks) {
    const frames = stack
      .filter(([scriptId]) => fileOf.has(scriptId))
      .map(([scriptId, at]) => ({ file: fileOf.get(scriptId)!, at: `${scriptId}@${at}` }))
      .reverse();
    let shared = 0;
    while (shared < Math.min(before.length, frames.length) && before[shared]!.at === frames[shared]!.at)
      shared += 1;
    for (let i = before.length - 2; i >= Math.max(shared - 1, 0); i -= 1) step(before[i]!.file);
    for (const frame of frames.slice(shared)) step(frame.file);
    before = frames;
  }
  return steps;
}

/** Line and column (both from 0) of a character offset in a script's source. */
function positionAt(source: string, offset: number): { lineNumber: number; columnNumber: number } {
  const before = source.slice(0, offset);
  const lineNumber = before.split('\n').length - 1;
  return { lineNumber, columnNumber: offset - (before.lastIndexOf('\n') + 1) };
}

describe('the consumer path', () => {
  it('one record, from the hand-off to its offset commit, enters the files docs/messaging.md lists, in its order and steps', async () => {
    const commits = vi.fn(() => Promise.resolve());
    const committed = async (count: number) => {
      while (commits.mock.calls.length < count) await new Promise((resolve) => setImmediate(resolve));
    };
    const { eachBatch, close } = await serverUnderTest();
    // The first record pays for what runs once (connections, handler lookup); the second is
    // measured: which functions of which files it runs; the third: in which order it enters them.
    await eachBatch(recordAt('0', commits));
    await committed(1);
    const measured = recordAt('1', commits);

    const session = new Session();
    session.connect();
    await session.post('Debugger.enable');
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    await session.post('Profiler.takePreciseCoverage');
    await eachBatch(measured);
    await committed(2);
    const { result } = await session.post('Profiler.takePreciseCoverage');

    const entered: string[] = [];
    const starts: FunctionStart[] = [];
    for (const script of result) {
      const file = script.url.replace(/^file:\/\//, '');
      if (!file.startsWith(`${libs}/`) || file.includes('/node_modules/') || file.endsWith('.spec.ts'))
        continue;
      const { scriptId } = script;
      const { scriptSource } = await session.post('Debugger.getScriptSource', { scriptId });
      // A function's first range is the whole function, with its call count.
      const ran = script.functions
        .flatMap(({ ranges: [range] }) => (range !== undefined && range.count > 0 ? [range] : []))
        .filter((range) => !IMPORT_GETTER.test(scriptSource.slice(range.startOffset, range.endOffset)));
      const relative = path.relative(libs, file);
      if (ran.length > 0) entered.push(relative);
      for (const range of ran) {
        const { locations } = await session.post('Debugger.getPossibleBreakpoints', {
          start: { scriptId, ...positionAt(scriptSource, range.startOffset) },
          end: { scriptId, ...positionAt(scriptSource, range.endOffset) },
          restrictToFunction: true,
        });
        const [first] = locations;
        if (first !== undefined)
          starts.push({
            scriptId,
            lineNumber: first.lineNumber,
            columnNumber: first.columnNumber ?? 0,
            file: relative,
          });
      }
    }
    await session.post('Debugger.disable');
    session.disconnect();

    const followed = recordAt('2', commits);
    const steps = await stepsBetweenFiles(starts, () => eachBatch(followed).then(() => committed(3)));
    await close();

    const documented = documentedPath();
    const files = [...new Set(steps)];
    expect(entered.sort()).toEqual([...documented.files].sort());
    expect(files).toEqual(documented.files);
    expect(steps.map((file) => files.indexOf(file) + 1).join(' → ')).toBe(documented.steps);
    expect([files.length, steps.length - files.length]).toEqual([documented.fileCount, documented.returns]);
  });
});
