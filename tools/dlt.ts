/**
 * Lists and replays a service's dead letters: `node dist/tools/dlt.js --help` (npm run dlt -- --help).
 * The logic lives in @pipeline/dead-letters; this file parses arguments and prints.
 */
import { parseArgs } from 'node:util';
import { deadLetterTopic, ServiceNames, type ServiceName } from '@pipeline/contracts';
import { createKafka, parseBrokerList } from '@pipeline/messaging';
import {
  filterDeadLetters,
  groupCopies,
  parseIsoInstant,
  planReplay,
  readDeadLetters,
  renderPlan,
  renderDuplicates,
  renderRecords,
  renderReplayResult,
  renderSkipped,
  renderSummary,
  replayTargets,
  sendReplay,
  summariseDeadLetters,
  toDeadLetterRow,
  type DeadLetterFilter,
} from '@pipeline/dead-letters';
import { logLevel, type Kafka, type logCreator } from 'kafkajs';
import { runMain } from './run-main';

const USAGE = `Usage: dlt <command> --service <name> [options]

Commands:
  list      count a service's dead letters (by error, error_class, original topic, event type;
            oldest/newest failed_at) and list them; a record the same consumer group
            dead-lettered twice (same original topic/partition/offset) counts and lists once,
            with its copies
  replay    produce dead letters back onto their original topic, diagnostic headers removed and
            replayed_from=<dead-letter topic>/<partition>/<offset> added; each once, however
            many copies of it the topic holds

Options:
  --service <name>         ${ServiceNames.join(' | ')}: reads <name>.dead-letter
  --topic <topic>          read this dead-letter topic instead of the service's
  --json                   list: print the summary and the records as JSON
  --event-id <id>          replay: only the record with this ce_id (repeatable)
  --original-topic <t>     replay: only records dead-lettered from topic t
  --since <ISO-8601>       replay: only records with failed_at >= this (2026-11-30, 2026-11-30T10:00Z)
  --until <ISO-8601>       replay: only records with failed_at < this
  --dry-run                replay: print what would be replayed, produce nothing
  -h, --help               print this help

Both commands read a snapshot (the topic from its beginning up to its end offsets at start) and
commit no offsets. Brokers: KAFKA_BROKERS (default 127.0.0.1:9092).
Exit status: 0 done, 1 failure, 2 usage error.`;

class UsageError extends Error {}

interface Command {
  readonly name: 'list' | 'replay';
  readonly topic: string;
  readonly json: boolean;
  readonly dryRun: boolean;
  readonly filter: DeadLetterFilter;
}

const OPTIONS = {
  service: { type: 'string' },
  topic: { type: 'string' },
  json: { type: 'boolean' },
  'event-id': { type: 'string', multiple: true },
  'original-topic': { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  'dry-run': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const REPLAY_ONLY = ['event-id', 'original-topic', 'since', 'until', 'dry-run'] as const;

function parseCommand(argv: string[]): Command | 'help' {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    // Node's messages are long; the first sentence says it.
    throw new UsageError((error instanceof Error ? error.message : String(error)).split('. ')[0]);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const [name, ...extra] = positionals;
  if (name === undefined) throw new UsageError('missing command (list or replay)');
  if (name !== 'list' && name !== 'replay')
    throw new UsageError(`unknown command "${name}" (list or replay)`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const misplaced =
    name === 'list' ? REPLAY_ONLY.find((option) => values[option] !== undefined) : values.json && 'json';
  if (misplaced) throw new UsageError(`--${misplaced} is not an option of ${name}`);
  return {
    name,
    topic: topicOf(values.service, values.topic),
    json: values.json ?? false,
    dryRun: values['dry-run'] ?? false,
    filter: {
      ...(values['event-id'] ? { eventIds: values['event-id'] } : {}),
      ...(values['original-topic'] !== undefined ? { originalTopic: values['original-topic'] } : {}),
      ...(values.since !== undefined ? { since: instant('since', values.since) } : {}),
      ...(values.until !== undefined ? { until: instant('until', values.until) } : {}),
    },
  };
}

function topicOf(service: string | undefined, topic: string | undefined): string {
  if (service !== undefined && !ServiceNames.includes(service as ServiceName)) {
    throw new UsageError(`unknown service "${service}" (expected one of ${ServiceNames.join(', ')})`);
  }
  if (topic !== undefined) {
    if (topic.trim() === '') throw new UsageError('--topic needs a topic name');
    return topic;
  }
  if (service === undefined) throw new UsageError('missing --service <name>');
  return deadLetterTopic(service as ServiceName);
}

function instant(option: string, text: string): Date {
  const date = parseIsoInstant(text);
  if (date === undefined) {
    throw new UsageError(
      `--${option} "${text}" is not an ISO-8601 date or date-time with a zone (e.g. 2026-11-30T10:00Z)`,
    );
  }
  return date;
}

// kafkajs logs to stderr so that stdout (`--json`) stays parseable.
const stderrLogger: logCreator =
  () =>
  ({ namespace, log }) =>
    void process.stderr.write(`[kafkajs] ${namespace} ${String(log.message)}\n`);

const print = (lines: readonly string[]): void =>
  void process.stdout.write(lines.map((line) => `${line}\n`).join(''));

async function run(command: Command, kafka: Kafka): Promise<void> {
  const snapshot = await readDeadLetters(kafka, {
    topic: command.topic,
    onProgress: (read, expected) =>
      process.stderr.write(`reading ${command.topic}: ${read} of ${expected} records\n`),
  });
  const { records } = snapshot;
  if (command.name === 'list') {
    const summary = summariseDeadLetters(records);
    const deadLetters = groupCopies(records);
    if (command.json) {
      print([
        JSON.stringify({ topic: command.topic, summary, records: deadLetters.map(toDeadLetterRow) }, null, 2),
      ]);
    } else {
      print([
        ...renderSummary(command.topic, summary),
        ...(records.length > 0 ? ['', ...renderRecords(deadLetters)] : []),
      ]);
    }
    return;
  }
  const selected = filterDeadLetters(records, command.filter);
  const plan = planReplay(selected);
  const found = new Set(selected.map((record) => record.eventId));
  print([
    `${command.topic}: ${records.length} record${records.length === 1 ? '' : 's'} in the snapshot, ${selected.length} selected`,
    ...(command.filter.eventIds ?? []).filter((id) => !found.has(id)).map((id) => `not found: ce_id ${id}`),
    ...renderSkipped(plan),
    ...renderDuplicates(plan),
  ]);
  if (command.dryRun) {
    const wouldBe = { replayed: plan.items.length, byTopic: replayTargets(plan) };
    print([
      ...(plan.items.length > 0 ? renderPlan(plan) : []),
      ...renderReplayResult(wouldBe, 'dry run: would replay'),
    ]);
    return;
  }
  print(renderReplayResult(await sendReplay(kafka, plan)));
}

async function main(argv: string[]): Promise<number> {
  let command: Command | 'help';
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`dlt: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (command === 'help') {
    print([USAGE]);
    return 0;
  }
  const brokers = parseBrokerList(process.env.KAFKA_BROKERS ?? '127.0.0.1:9092');
  const kafka = createKafka(
    { brokers, clientId: 'dlt' },
    { logLevel: logLevel.ERROR, logCreator: stderrLogger },
  );
  try {
    await run(command, kafka);
    return 0;
  } catch (error) {
    process.stderr.write(
      `dlt: ${command.name} failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
}

runMain('dlt', () => main(process.argv.slice(2)));
