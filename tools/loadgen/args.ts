import { parseArgs } from 'node:util';
import {
  DefaultGroups,
  DefaultMix,
  DefaultTraceRatio,
  LoadConfigError,
  parseGroups,
  parseMix,
  type ArrivalModel,
  type LoadConfig,
} from '@pipeline/load';

export { DefaultGroups, DefaultTraceRatio };

export class UsageError extends Error {}

/** The CLI's configuration: the engine's, plus where the reports go. */
export interface LoadgenConfig extends LoadConfig {
  readonly out: string;
}

export const OPTIONS = {
  rate: { type: 'string' },
  steps: { type: 'string' },
  'step-seconds': { type: 'string' },
  closed: { type: 'string' },
  duration: { type: 'string' },
  'max-in-flight': { type: 'string' },
  connections: { type: 'string' },
  'base-url': { type: 'string' },
  mix: { type: 'string' },
  customers: { type: 'string' },
  seed: { type: 'string' },
  'trace-ratio': { type: 'string' },
  'kafka-brokers': { type: 'string' },
  'topic-prefix': { type: 'string' },
  groups: { type: 'string' },
  'group-prefix': { type: 'string' },
  'lag-interval': { type: 'string' },
  'drain-seconds': { type: 'string' },
  'check-emails': { type: 'boolean' },
  'maildev-url': { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function number(option: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < min)
    throw new UsageError(`--${option} must be a number >= ${min}, got "${text}"`);
  return value;
}

function ratio(option: string, text: string | undefined, fallback: number): number {
  const value = number(option, text, fallback, 0);
  if (value > 1) throw new UsageError(`--${option} must be within 0 and 1, got "${text}"`);
  return value;
}

function integer(option: string, text: string | undefined, fallback: number, min: number): number {
  const value = number(option, text, fallback, min);
  if (!Number.isInteger(value)) throw new UsageError(`--${option} must be an integer, got "${text}"`);
  return value;
}

/** The library's syntax errors, as usage errors (exit status 2). */
function usage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof LoadConfigError) throw new UsageError(error.message);
    throw error;
  }
}

function groupsOf(spec: string | undefined, prefix: string | undefined): Record<string, readonly string[]> {
  if (spec !== undefined && prefix !== undefined)
    throw new UsageError('--group-prefix applies to the default groups; name them in --groups instead');
  if (spec !== undefined) return usage(() => parseGroups(spec));
  if (prefix === undefined) return DefaultGroups;
  return Object.fromEntries(Object.entries(DefaultGroups).map(([group, topics]) => [prefix + group, topics]));
}

function arrivalModel(values: ReturnType<typeof parse>['values']): ArrivalModel {
  const chosen = (['rate', 'steps', 'closed'] as const).filter((option) => values[option] !== undefined);
  if (chosen.length > 1)
    throw new UsageError(
      `choose one of --rate, --steps, --closed (got ${chosen.map((o) => `--${o}`).join(', ')})`,
    );
  const duration = number('duration', values.duration, 60, 1);
  if (values.steps !== undefined) {
    if (values.duration !== undefined)
      throw new UsageError('--duration does not apply to --steps (use --step-seconds)');
    const steps = values.steps.split(',').map((step) => number('steps', step, 0, 0.001));
    return { kind: 'stepped', steps, stepSeconds: number('step-seconds', values['step-seconds'], 30, 1) };
  }
  if (values['step-seconds'] !== undefined) throw new UsageError('--step-seconds needs --steps');
  if (values.closed !== undefined)
    return { kind: 'closed', clients: integer('closed', values.closed, 1, 1), durationSeconds: duration };
  return { kind: 'open', rate: number('rate', values.rate, 50, 0.001), durationSeconds: duration };
}

const parse = (argv: string[]) =>
  parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false });

export function parseConfig(argv: string[], now: Date = new Date()): LoadgenConfig | 'help' {
  let parsed;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError((error instanceof Error ? error.message : String(error)).split('. ')[0]);
  }
  const { values } = parsed;
  if (values.help) return 'help';
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const brokers = (values['kafka-brokers'] ?? process.env.KAFKA_BROKERS ?? '127.0.0.1:9092')
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker !== '');
  if (brokers.length === 0) throw new UsageError('--kafka-brokers needs at least one host:port');
  return {
    model: arrivalModel(values),
    maxInFlight: integer('max-in-flight', values['max-in-flight'], 1000, 1),
    connections: integer('connections', values.connections, 256, 1),
    baseUrl: (values['base-url'] ?? 'http://127.0.0.1:3000').replace(/\/+$/, ''),
    mix: usage(() => parseMix(values.mix ?? DefaultMix)),
    customers: integer('customers', values.customers, 1000, 1),
    seed: integer('seed', values.seed, Date.now() % 2 ** 31, 0),
    traceRatio: ratio('trace-ratio', values['trace-ratio'], DefaultTraceRatio),
    kafkaBrokers: brokers,
    topicPrefix: values['topic-prefix'] ?? process.env.KAFKA_TOPIC_PREFIX ?? '',
    groups: groupsOf(values.groups, values['group-prefix']),
    lagIntervalMs: Math.round(number('lag-interval', values['lag-interval'], 5, 0.1) * 1000),
    drainSeconds: number('drain-seconds', values['drain-seconds'], 30, 0),
    checkEmails: values['check-emails'] ?? false,
    maildevUrl: (values['maildev-url'] ?? 'http://127.0.0.1:1080').replace(/\/+$/, ''),
    out: values.out ?? `reports/loadgen-${stamp}.json`,
  };
}
