import { Outcomes, type OutcomeMix } from './order-mix';

/** A load configuration that cannot run; the message names the option (the CLI and the console say it). */
export class LoadConfigError extends Error {}

/** The five services' consumer groups and the (unprefixed) topics each consumes. */
export const DefaultGroups = {
  'order-service': ['payments', 'inventory'],
  'payment-service': ['orders', 'inventory'],
  'inventory-service': ['payments'],
  'email-service': ['orders'],
  'analytics-service': ['orders'],
} as const satisfies Record<string, readonly string[]>;

/** 1 % of a load run's orders are traced unless it asks otherwise (docs/observability.md). */
export const DefaultTraceRatio = 0.01;

export const DefaultMix = 'confirmed=90,declined=5,out-of-stock=5';

export type ArrivalModel =
  | { readonly kind: 'open'; readonly rate: number; readonly durationSeconds: number }
  | { readonly kind: 'stepped'; readonly steps: readonly number[]; readonly stepSeconds: number }
  | { readonly kind: 'closed'; readonly clients: number; readonly durationSeconds: number };

/** What one load run does; `npm run loadgen` parses it from flags, the console from its form. */
export interface LoadConfig {
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
}

/** `confirmed=90,declined=5,out-of-stock=5`: outcome weights (loadgen's --mix). */
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
      throw new LoadConfigError(`--mix: "${part}" is not <${Outcomes.join('|')}>=<weight>`);
    const value = Number(weight);
    if (weight === '' || !Number.isFinite(value) || value < 0)
      throw new LoadConfigError(`--mix: bad weight "${weight}" for ${name}`);
    mix[name] = value;
  }
  if (Object.values(mix).every((weight) => weight === 0))
    throw new LoadConfigError('--mix: all weights are 0');
  return mix as OutcomeMix;
}

/** `group=topic+topic,group=topic` (loadgen's --groups). */
export function parseGroups(text: string): Record<string, string[]> {
  const groups: Record<string, string[]> = {};
  for (const part of text.split(',')) {
    const [group, topics] = part.split('=');
    if (!group || !topics) throw new LoadConfigError(`--groups: "${part}" is not <group>=<topic>+<topic>`);
    groups[group.trim()] = topics.split('+').map((topic) => topic.trim());
  }
  return groups;
}
