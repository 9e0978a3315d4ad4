import type { LoggerService, LogLevel } from '@nestjs/common';
import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import { activeTraceIds } from '../tracing/telemetry';
import { currentLogContext } from './log-context';
import { prettyDestination } from './pretty-destination';

export const LogLevels = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'] as const;

/** Nest's level names mapped onto pino's: `log` is info, `verbose` is trace. */
const PINO_LEVELS: Readonly<Record<LogLevel, Level>> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/**
 * Fields censored wherever a caller logs an object holding them: credentials, connection strings
 * (which carry passwords) and email bodies (personal data; the subject and Message-ID suffice).
 */
export const REDACTED_PATHS = [
  'password',
  'pass',
  'authorization',
  'cookie',
  'DATABASE_URL',
  'SMTP_URL',
  'databaseUrl',
  'smtpUrl',
  'connectionString',
  'html',
  'text',
].flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);

/** `scheme://user:secret@host` in a message keeps the user and loses the secret. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s/@]+@/gi;

export interface ServiceLoggerOptions {
  readonly service: string;
  readonly level: LogLevel;
  /** JSON lines for machines (default), or one readable line per entry for a terminal. */
  readonly json: boolean;
  /** Where lines go; stdout, written synchronously, by default (nothing lost on process.exit). */
  readonly destination?: DestinationStream;
}

type Fields = Record<string, unknown>;

/**
 * Nest's LoggerService on pino. Every line names its service and Nest context; inside a trace or
 * an event's handling it also carries trace_id, span_id, event_id, event_type and order_id.
 */
export class ServiceLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...optionalParams: unknown[]): void {
    this.write('info', message, optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.write('warn', message, optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.write('debug', message, optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.write('trace', message, optionalParams);
  }

  /** `error(message, stack?, context?)`, Nest's convention. */
  error(message: unknown, ...optionalParams: unknown[]): void {
    this.write('error', message, optionalParams, true);
  }

  /** As `error`: a start-up failure passes its stack too. */
  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.write('fatal', message, optionalParams, true);
  }

  /** Nest passes the enabled levels; the most verbose of them becomes the threshold. */
  setLogLevels(levels: LogLevel[]): void {
    const mostVerbose = [...LogLevels].reverse().find((level) => levels.includes(level));
    this.logger.level = mostVerbose === undefined ? 'silent' : PINO_LEVELS[mostVerbose];
  }

  private write(level: Level, message: unknown, params: unknown[], mayHaveStack = false): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const { context, stack, rest } = splitParams(params, mayHaveStack);
    const fields: Fields = context === undefined ? {} : { context };
    const texts: string[] = [];
    for (const value of [message, ...rest]) {
      if (value instanceof Error) {
        fields.err = value;
        texts.push(value.message);
      } else if (isPlainObject(value)) {
        const { msg, message: text, ...others } = value;
        Object.assign(fields, others);
        if (typeof (msg ?? text) === 'string') texts.push(String(msg ?? text));
      } else if (value !== undefined) {
        texts.push(typeof value === 'string' ? value : JSON.stringify(value));
      }
    }
    if (stack !== undefined) fields.stack = stack;
    this.logger[level](fields, scrubCredentials(texts.join(' ')));
  }
}

export function createServiceLogger(options: ServiceLoggerOptions): ServiceLogger {
  const stdout = options.destination ?? pino.destination({ dest: 1, sync: true });
  const logger = pino(
    {
      level: PINO_LEVELS[options.level],
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => ({ ...activeTraceIds(), ...currentLogContext() }),
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    options.json ? stdout : prettyDestination(stdout),
  );
  return new ServiceLogger(logger);
}

/**
 * Nest's calling convention: with two or more parameters the last string is the context; for
 * `error`, a stack trace (or `undefined`, which Nest's Logger passes for "no stack") before it.
 */
function splitParams(
  params: unknown[],
  mayHaveStack: boolean,
): { context?: string; stack?: string; rest: unknown[] } {
  const [only] = params;
  if (mayHaveStack && params.length === 1 && isStackTrace(only)) return { stack: only, rest: [] };
  const last = params.at(-1);
  const context = typeof last === 'string' ? last : undefined;
  const rest = context === undefined ? [...params] : params.slice(0, -1);
  const stack = mayHaveStack && rest.length > 0 ? rest.at(-1) : null;
  if (stack === undefined || typeof stack === 'string') rest.pop();
  return {
    ...(context === undefined ? {} : { context }),
    ...(typeof stack === 'string' ? { stack } : {}),
    rest,
  };
}

const isStackTrace = (value: unknown): value is string =>
  typeof value === 'string' && /^.+\n\s+at .+:\d+:\d+/.test(value);

const isPlainObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const scrubCredentials = (text: string): string => text.replace(URL_CREDENTIALS, '$1[redacted]@');
