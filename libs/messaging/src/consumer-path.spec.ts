import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type pg from 'pg';
import { encodeHeaders, metadataOf, type EventContracts } from '@pipeline/contracts';
import { KafkaEventServer } from './nest/kafka-event-server';
import type { EventContext } from './handlers/event-batch';

const libs = path.resolve(__dirname, '../..');
const docs = path.resolve(libs, '../docs/messaging.md');

/** The files docs/messaging.md says one record enters, between its consumer-path markers. */
function documentedPath(): string[] {
  const text = readFileSync(docs, 'utf8');
  const list = text.slice(
    text.indexOf('<!-- consumer-path:start -->'),
    text.indexOf('<!-- consumer-path:end -->'),
  );
  return [...list.matchAll(/\d+\. `([^`]+\.ts)`/g)].map((match) => match[1]!);
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

describe('the consumer path', () => {
  it('one record, from the hand-off to its offset commit, enters the files docs/messaging.md lists', async () => {
    const commits = vi.fn(() => Promise.resolve());
    const committed = async (count: number) => {
      while (commits.mock.calls.length < count) await new Promise((resolve) => setImmediate(resolve));
    };
    const { eachBatch, close } = await serverUnderTest();
    // The first record pays for what runs once (connections, handler lookup); the second is measured.
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
    for (const script of result) {
      const file = script.url.replace(/^file:\/\//, '');
      if (!file.startsWith(`${libs}/`) || file.includes('/node_modules/') || file.endsWith('.spec.ts'))
        continue;
      const { scriptSource } = await session.post('Debugger.getScriptSource', { scriptId: script.scriptId });
      const ran = script.functions.some(({ ranges: [range] }) => {
        if (range === undefined || range.count === 0) return false;
        return !IMPORT_GETTER.test(scriptSource.slice(range.startOffset, range.endOffset));
      });
      if (ran) entered.push(path.relative(libs, file));
    }
    session.disconnect();
    await close();

    expect(entered.sort()).toEqual(documentedPath().sort());
  });
});
