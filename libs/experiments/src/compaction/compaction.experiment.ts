import { ConfigResourceTypes, type Producer } from 'kafkajs';
import type { Experiment, ExperimentContext, ExperimentVerdict } from '../experiment';
import { kafkaCliAvailability } from '../kafka-cli/kafka-cli';
import { partitionSize } from '../kafka-cli/log-dirs';
import { waitFor } from '../support/abortable';
import { brokerAvailability } from '../support/broker-availability';
import { LabResources, removedText } from '../support/lab-resources';
import {
  compactedAfterTombstone,
  compactedToLatest,
  countKeys,
  logEvidence,
  type LogRecord,
} from './compaction-criterion';
import { readLog } from './read-log';

const KEYS = Array.from({ length: 10 }, (_, i) => `key-${i}`);
const UPDATES = 10;
const DELETED = KEYS[0]!;
/** Appended only to close the active segment: the cleaner never touches the segment being written. */
const ROLL_KEY = 'segment-roll';
const latestValue = (key: string) => `${key}:v${UPDATES}`;

// The cleaner wakes every second on our broker (log.cleaner.backoff.ms=1000, infra/bin/kafka.sh)
// and cleans a log once 1 % of it is dirty. Tombstones are kept delete.retention.ms (100 ms here)
// after the cleaner first passed them, so that a consumer can still see the deletion; then a
// later pass drops them too.
const CLEANING = [
  { name: 'cleanup.policy', value: 'compact' },
  { name: 'min.cleanable.dirty.ratio', value: '0.01' },
  { name: 'min.compaction.lag.ms', value: '0' },
  { name: 'delete.retention.ms', value: '100' },
  { name: 'file.delete.delay.ms', value: '0' },
];
/** Once set, a segment rolls on the first append more than 100 ms after it was opened. */
const ROLLING = { name: 'segment.ms', value: '100' };

export const compactionExperiment: Experiment = {
  id: 'compaction',
  title: 'Log compaction and tombstones',
  description:
    'A compacted topic keeps, for every key, at least its latest record: the log cleaner rewrites closed segments without the older ones. A record with a null value (a tombstone) deletes its key.',
  criterion:
    'After 10 updates of each of 10 keys (100 records) and compaction: 10 records, each the latest value of its key, in a smaller log (size from kafka-log-dirs). A tombstone for one key plus compaction leaves 9 keys with a value.',
  availability: async ({ kafka, brokers }) => {
    const cli = kafkaCliAvailability();
    return cli.available ? brokerAvailability(kafka, brokers) : cli;
  },
  run: runCompaction,
};

async function runCompaction(context: ExperimentContext): Promise<ExperimentVerdict> {
  const { kafka, brokers, signal } = context;
  const lab = new LabResources(context);
  const topic = lab.name('changelog');
  const readerGroup = lab.name('reader');
  const producer = kafka.producer();
  lab.onCleanup(() => producer.disconnect());
  const size = () => partitionSize({ brokers, topic, signal });
  try {
    const admin = await lab.connectedAdmin();
    const read = () => readLog(kafka, admin, topic, readerGroup, signal);
    // No segment.ms yet: all 100 records stay in the active segment, uncompacted, until measured.
    await lab.createTopics([{ name: 'changelog', configEntries: CLEANING }]);
    await producer.connect();
    context.step(`Created compacted topic ${topic}.`, {
      kind: 'values',
      caption: 'Topic configuration',
      entries: CLEANING.map((entry) => [entry.name, entry.value]),
    });

    for (let version = 1; version <= UPDATES; version++) {
      await producer.send({ topic, messages: KEYS.map((key) => ({ key, value: `${key}:v${version}` })) });
    }
    const before = await read();
    const sizeBefore = await size();
    context.step(
      `Published ${UPDATES} updates of each of ${KEYS.length} keys: ${before.length} records, ${sizeBefore} bytes.`,
      logEvidence('The log before compaction', before, KEYS),
    );

    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [...CLEANING, ROLLING] }],
    });
    context.step(
      `Set segment.ms=${ROLLING.value}: the next append closes the segment, and the cleaner can compact it.`,
    );
    const compacted = await untilCompacted(context, producer, topic, read, (records) =>
      compactedToLatest(countKeys(records, KEYS, latestValue), KEYS),
    );
    const sizeCompacted = await size();
    const first = countKeys(compacted, KEYS, latestValue);
    context.step(
      `Compacted: ${first.records} records of the ${KEYS.length} keys, ${sizeCompacted} bytes.`,
      logEvidence('The log after compaction', compacted, KEYS),
    );

    await producer.send({ topic, messages: [{ key: DELETED, value: null }] });
    context.step(`Published a tombstone (null value) for ${DELETED}.`);
    const cleaned = await untilCompacted(context, producer, topic, read, (records) =>
      compactedAfterTombstone(countKeys(records, KEYS, latestValue), KEYS, DELETED),
    );
    const sizeCleaned = await size();
    const second = countKeys(cleaned, KEYS, latestValue);
    context.step(
      `Compacted again: ${second.withValue} keys with a value, ${second.tombstones} tombstone(s) left, ${sizeCleaned} bytes.`,
      logEvidence('The log after the tombstone and compaction', cleaned, KEYS),
    );

    const passed =
      before.length === KEYS.length * UPDATES &&
      compactedToLatest(first, KEYS) &&
      sizeCompacted < sizeBefore &&
      compactedAfterTombstone(second, KEYS, DELETED);
    const rolls = (records: readonly LogRecord[]) =>
      records.filter((record) => record.key === ROLL_KEY).length;
    return {
      passed,
      summary: passed
        ? `100 records compacted to 10 (the latest of each key), ${sizeBefore} → ${sizeCompacted} bytes; after the tombstone, 9 keys with a value.`
        : `Not as expected: ${before.length} records before, ${first.records} after compaction (${sizeBefore} → ${sizeCompacted} bytes), ${second.withValue} with a value after the tombstone.`,
      evidence: [
        {
          kind: 'values',
          caption: 'Records and log size (kafka-log-dirs)',
          entries: [
            ['records before', String(before.length)],
            ['size before', `${sizeBefore} bytes`],
            ['records after compaction', String(first.records)],
            ['size after compaction', `${sizeCompacted} bytes`],
            ['keys with a value after the tombstone', String(second.withValue)],
            [
              `tombstone of ${DELETED} still in the log`,
              second.tombstones > 0
                ? 'yes (kept for delete.retention.ms after the first pass)'
                : 'no (already removed)',
            ],
            ['size after the tombstone', `${sizeCleaned} bytes`],
            [`${ROLL_KEY} records (only close segments; not counted)`, String(rolls(cleaned))],
          ],
        },
        logEvidence('The log after compaction', compacted, KEYS),
        logEvidence('The log after the tombstone and compaction', cleaned, KEYS),
      ],
    };
  } finally {
    const removed = await lab.cleanup().catch(() => undefined);
    if (removed !== undefined) context.step(removedText(removed));
  }
}

/**
 * The cleaner compacts only closed segments, and a segment closes only on an append: each probe
 * appends one record of the roll key, then reads the log until `done` holds.
 */
async function untilCompacted(
  context: ExperimentContext,
  producer: Producer,
  topic: string,
  read: () => Promise<LogRecord[]>,
  done: (records: readonly LogRecord[]) => boolean,
): Promise<LogRecord[]> {
  let probes = 0;
  const started = Date.now();
  const records = await waitFor(
    `the log cleaner to compact ${topic}`,
    async () => {
      await producer.send({ topic, messages: [{ key: ROLL_KEY, value: `roll-${++probes}` }] });
      const log = await read();
      return done(log) ? log : undefined;
    },
    { signal: context.signal, timeoutMs: 60_000, intervalMs: 300 },
  );
  context.step(`The cleaner compacted ${topic} after ${probes} probe(s), ${Date.now() - started} ms.`);
  return records;
}
