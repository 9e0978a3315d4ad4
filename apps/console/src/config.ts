import { consumerGroupOf, ServiceNames, type ServiceName } from '@pipeline/contracts';
import { resolve } from 'node:path';
import { parseBrokerList } from '@pipeline/messaging';
import { z } from 'zod';

const DEFAULT_PORTS: Readonly<Record<ServiceName, number>> = {
  order: 3000,
  payment: 3001,
  inventory: 3002,
  email: 3003,
  analytics: 3004,
};

const urlList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value) =>
      value
        .split(',')
        .map((url) => url.trim().replace(/\/+$/, ''))
        .filter(Boolean),
    )
    .refine((urls) => urls.length > 0 && urls.every((url) => /^https?:\/\/[^\s/]+$/.test(url)), {
      message: 'must be a comma-separated list of http(s)://host:port base URLs',
    });

const baseUrl = (fallback?: string) => {
  const text = fallback === undefined ? z.string() : z.string().default(fallback);
  return text
    .transform((url) => url.trim().replace(/\/+$/, ''))
    .refine((url) => /^https?:\/\/[^\s]+$/.test(url), { message: 'must be an http(s) URL' });
};

const serviceUrlFields = Object.fromEntries(
  ServiceNames.map((name) => [
    `${name.toUpperCase()}_SERVICE_URL`,
    urlList(`http://127.0.0.1:${DEFAULT_PORTS[name]}`),
  ]),
) as Record<`${Uppercase<ServiceName>}_SERVICE_URL`, ReturnType<typeof urlList>>;

/** Each service's consumer group, whose lag the picture draws: the services' own default. */
const serviceGroupFields = Object.fromEntries(
  ServiceNames.map((name) => [
    `${name.toUpperCase()}_SERVICE_GROUP`,
    z.string().min(1).default(consumerGroupOf(name)),
  ]),
) as Record<`${Uppercase<ServiceName>}_SERVICE_GROUP`, z.ZodDefault<z.ZodString>>;

/** The console's environment, validated once at start-up. */
export const consoleConfigSchema = z
  .object({
    PORT: z.coerce.number().int().min(1).max(65_535).default(3005),
    /** Loopback unless configured otherwise: the console can redrive and reset offsets. */
    HOST: z.string().min(1).default('127.0.0.1'),
    /** Enables the actions that change something; without it the console is read-only. */
    CONSOLE_TOKEN: z
      .string()
      .optional()
      .transform((token) => (token === undefined || token === '' ? undefined : token))
      .refine((token) => token === undefined || token.length >= 8, {
        message: 'must be at least 8 characters (or unset for a read-only console)',
      }),
    KAFKA_BROKERS: z
      .string()
      .default('127.0.0.1:9092')
      .transform(parseBrokerList)
      .refine((brokers) => brokers.length > 0 && brokers.every((b) => /^[^\s:]+:\d+$/.test(b)), {
        message: 'must be a comma-separated list of host:port',
      }),
    KAFKA_TOPIC_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9._-]*$/, { message: 'may contain only letters, digits, ".", "_" and "-"' })
      .default(''),
    CONSOLE_CONSUMER_GROUP: z.string().min(1).default('console'),
    /** How far back the live flow reads when the console starts, and how long it keeps orders. */
    CONSOLE_HISTORY_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(15 * 60_000),
    /** Upper bound of orders kept in memory for the live list and the journeys. */
    CONSOLE_MAX_ORDERS: z.coerce.number().int().positive().default(5_000),
    /** How often the sampler reads the pipeline (admin API and /metrics) for the picture and charts. */
    CONSOLE_SAMPLE_INTERVAL_MS: z.coerce.number().int().min(1_000).max(60_000).default(5_000),
    /** The charts' history: samples kept in a ring buffer (180 at 5 s: 15 minutes). */
    CONSOLE_HISTORY_POINTS: z.coerce.number().int().min(2).max(10_000).default(180),
    /** Open live-flow streams (/flow/stream) at once; one more is refused with 503. */
    CONSOLE_MAX_STREAMS: z.coerce.number().int().positive().max(1_000).default(20),
    /** Open experiment streams (/experiments/stream) at once; one more is refused with 503. */
    CONSOLE_MAX_EXPERIMENT_STREAMS: z.coerce.number().int().positive().max(1_000).default(50),
    /** A stream whose client leaves this much unread in the console's socket buffer is closed. */
    CONSOLE_STREAM_MAX_BUFFERED_BYTES: z.coerce
      .number()
      .int()
      .min(1_024)
      .max(64 * 1024 * 1024)
      .default(1024 * 1024),
    /** Events kept per live order (later ones still update its status). */
    CONSOLE_MAX_EVENTS_PER_ORDER: z.coerce.number().int().min(1).max(1_000).default(32),
    /** Dead letters per page, newest first. */
    CONSOLE_DEAD_LETTER_PAGE_SIZE: z.coerce.number().int().min(1).max(1_000).default(50),
    /** A page also ends before this many bytes of records (one record is always shown). */
    CONSOLE_DEAD_LETTER_PAGE_BYTES: z.coerce
      .number()
      .int()
      .min(64 * 1024)
      .max(256 * 1024 * 1024)
      .default(4 * 1024 * 1024),
    /** maildev on the local stack, Mailpit in Docker: their APIs and page links differ. */
    MAIL_UI_KIND: z.enum(['maildev', 'mailpit']).default('maildev'),
    MAIL_UI_URL: baseUrl('http://127.0.0.1:1080'),
    /** The mail UI as the browser reaches it (differs from MAIL_UI_URL inside Docker). */
    MAIL_UI_PUBLIC_URL: baseUrl().optional(),
    TRACE_UI_URL: baseUrl('http://127.0.0.1:9411'),
    TRACE_UI_PUBLIC_URL: baseUrl().optional(),
    TRACE_UI_KIND: z.enum(['zipkin', 'jaeger']).default('zipkin'),
    /** Where the Load page writes its JSON and HTML reports (relative to the working directory). */
    CONSOLE_REPORT_DIR: z.string().min(1).default('reports/loadgen'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
    ...serviceUrlFields,
    ...serviceGroupFields,
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    token: env.CONSOLE_TOKEN,
    kafka: {
      brokers: env.KAFKA_BROKERS,
      topicPrefix: env.KAFKA_TOPIC_PREFIX,
      group: env.CONSOLE_CONSUMER_GROUP,
    },
    historyMs: env.CONSOLE_HISTORY_MS,
    maxOrders: env.CONSOLE_MAX_ORDERS,
    sampleIntervalMs: env.CONSOLE_SAMPLE_INTERVAL_MS,
    historyPoints: env.CONSOLE_HISTORY_POINTS,
    maxStreams: env.CONSOLE_MAX_STREAMS,
    maxExperimentStreams: env.CONSOLE_MAX_EXPERIMENT_STREAMS,
    streamMaxBufferedBytes: env.CONSOLE_STREAM_MAX_BUFFERED_BYTES,
    maxEventsPerOrder: env.CONSOLE_MAX_EVENTS_PER_ORDER,
    deadLetterPage: { size: env.CONSOLE_DEAD_LETTER_PAGE_SIZE, maxBytes: env.CONSOLE_DEAD_LETTER_PAGE_BYTES },
    /** Base URLs of every instance of each service, the first one answering API calls. */
    services: Object.fromEntries(
      ServiceNames.map((name) => [name, env[`${name.toUpperCase() as Uppercase<ServiceName>}_SERVICE_URL`]]),
    ) as Record<ServiceName, string[]>,
    groups: Object.fromEntries(
      ServiceNames.map((name) => [
        name,
        env[`${name.toUpperCase() as Uppercase<ServiceName>}_SERVICE_GROUP`],
      ]),
    ) as Record<ServiceName, string>,
    mail: {
      kind: env.MAIL_UI_KIND,
      apiUrl: env.MAIL_UI_URL,
      publicUrl: env.MAIL_UI_PUBLIC_URL ?? env.MAIL_UI_URL,
    },
    traces: {
      kind: env.TRACE_UI_KIND,
      apiUrl: env.TRACE_UI_URL,
      publicUrl: env.TRACE_UI_PUBLIC_URL ?? env.TRACE_UI_URL,
    },
    load: { reportDir: resolve(env.CONSOLE_REPORT_DIR) },
    logLevel: env.LOG_LEVEL,
  }));

export type ConsoleConfig = z.output<typeof consoleConfigSchema>;

/** Validates the environment; names every invalid variable. */
export function loadConsoleConfig(env: NodeJS.ProcessEnv = process.env): ConsoleConfig {
  const parsed = consoleConfigSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  throw new Error(`invalid console configuration:\n${problems.join('\n')}`);
}
