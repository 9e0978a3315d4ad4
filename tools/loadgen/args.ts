import { parseArgs } from 'node:util';
import { Outcomes, type OutcomeMix } from '@pipeline/load';

export class UsageError extends Error {}

export const DefaultGroups = {
  'order-service': ['payments', 'inventory'],
  'payment-service': ['orders', 'inventory'],
  'inventory-service': ['payments'],
  'email-service': ['orders'],
  'analytics-service': ['orders'],
} as const satisfies Record<string, readonly string[]>;

/** 1 % of a load run's orders are traced unless it asks otherwise (docs/observability.md). */
export const DefaultTraceRatio = 0.01;

export type ArrivalModel =
  | { readonly kind: 'open'; readonly rate: number; readonly durationSeconds: number }
  | { readonly kind: 'stepped'; readonly steps: readonly number[]; readonly stepSeconds: number }
  | { readonly kind: 'closed'; readonly clients: number; readonly durationSeconds: number };

export interface LoadgenConfig {
  readonly model: ArrivalModel;
  readonly maxInFlight: number;
  /** Keep-alive connections to order-service at most (opened as the load needs them). */
  readonly connections: number;
  readonly baseUrl: string;
  readonly mix: OutcomeMix;
  readonly customers: number;
  readonly seed: number;
  /** The fraction of orders whose trace is sampled: the sampled flag of each POST's traceparent. */
  readonly traceRatio: number;
  readonly kafkaBrokers: readonly string[];
  readonly topicPrefix: string;
  /** Consumer group -> the (unprefixed) topics it consumes. */
  readonly groups: Readonly<Record<string, readonly string[]>>;
  readonly lagIntervalMs: number;
  readonly drainSeconds: number;
  readonly checkEmails: boolean;
  readonly maildevUrl: string;
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

export function parseMix(text: string): OutcomeMix {
  const mix: Record<string, number> = { confirmed: 0, declined: 0, 'out-of-stock': 0 };
  for (const part of text.split(',')) {
    const [name, weight, ...rest] = part.split('=').map((piece) => piece.trim());
    if (
      name === undefined ||
      weight === undefined ||
      rest.length > 0 ||
      !(Outcomes as readonly string[]).includes(name)
    )
      throw new UsageError(`--mix: "${part}" is not <${Outcomes.join('|')}>=<weight>`);
    const value = Number(weight);
    if (weight === '' || !Number.isFinite(value) || value < 0)
      throw new UsageError(`--mix: bad weight "${weight}" for ${name}`);
    mix[name] = value;
  }
  if (Object.values(mix).every((weight) => weight === 0)) throw new UsageError('--mix: all weights are 0');
  return mix as OutcomeMix;
}

/** `group=topic+topic,group=topic` */
export function parseGroups(text: string): Record<string, string[]> {
  const groups: Record<string, string[]> = {};
  for (const part of text.split(',')) {
    const [group, topics] = part.split('=');
    if (!group || !topics) throw new UsageError(`--groups: "${part}" is not <group>=<topic>+<topic>`);
    groups[group.trim()] = topics.split('+').map((topic) => topic.trim());
  }
  return groups;
}

function groupsOf(spec: string | undefined, prefix: string | undefined): Record<string, readonly string[]> {
  if (spec !== undefined && prefix !== undefined)
    throw new UsageError('--group-prefix applies to the default groups; name them in --groups instead');
  if (spec !== undefined) return parseGroups(spec);
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
    mix: parseMix(values.mix ?? 'confirmed=90,declined=5,out-of-stock=5'),
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
