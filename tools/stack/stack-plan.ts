/**
 * What `npm run stack` starts: every instance of the five services and the console, with the
 * environment each gets on this machine. The one definition of that environment; the memory
 * levers come from scripts/lib/service-runtime.env (tools/bench/service-runtime.ts).
 */
import { join } from 'node:path';
import { ServiceNames, type ServiceName } from '@pipeline/contracts';
import { serviceRuntimeEnv } from '../bench/service-runtime';
import type { ProcessSpec } from '@pipeline/supervisor';

/** Instance 1's port: the default of the service's config schema (apps/<name>-service/src/config.ts). */
export const ServicePorts: Readonly<Record<ServiceName, number>> = {
  order: 3000,
  payment: 3001,
  inventory: 3002,
  email: 3003,
  analytics: 3004,
};
/** Instance i of a service listens on its port + InstancePortStep * (i - 1). */
export const InstancePortStep = 100;
export const ConsolePort = 3005;
/** Logs and pid files, `<name>.log` and `<name>.pid`, relative to the repository. */
export const RunDir = '.run/services';

export type Environment = Readonly<Record<string, string | undefined>>;

export interface StackPlanOptions {
  readonly repoRoot: string;
  readonly instances: Readonly<Record<ServiceName, number>>;
  readonly console: boolean;
  /** The caller's: every process inherits it, and it overrides the defaults below. */
  readonly env: Environment;
}

export interface StackProcess {
  readonly spec: ProcessSpec;
  readonly service: ServiceName | 'console';
  /** `payment-service-2`, `console`: how the summary names it. */
  readonly label: string;
  readonly port: number;
  readonly baseUrl: string;
  /** Answers 200 once the process can do its work. */
  readonly readyUrl: string;
  /** The script it runs, relative to the repository (built by scripts/build.sh). */
  readonly entry: string;
}

/** `payment` for the first instance, `payment-2` for the second: names logs, pid files, log lines. */
export const processName = (service: ServiceName, instance: number): string =>
  instance === 1 ? service : `${service}-${instance}`;

export const instancePort = (service: ServiceName, instance: number): number =>
  ServicePorts[service] + InstancePortStep * (instance - 1);

export function planStack(options: StackPlanOptions): StackProcess[] {
  const services = ServiceNames.flatMap((service) =>
    Array.from({ length: options.instances[service] }, (_, i) => serviceProcess(options, service, i + 1)),
  );
  return options.console ? [...services, consoleProcess(options, services)] : services;
}

function serviceProcess(options: StackPlanOptions, service: ServiceName, instance: number): StackProcess {
  const { env } = options;
  const name = processName(service, instance);
  const port = instancePort(service, instance);
  const entry = `dist/apps/${service}-service/src/main.js`;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    service,
    label: instance === 1 ? `${service}-service` : `${service}-service-${instance}`,
    port,
    baseUrl,
    readyUrl: `${baseUrl}/health/ready`,
    entry,
    spec: spec(options, name, entry, {
      PORT: String(port),
      DATABASE_URL: databaseUrl(env, service),
      KAFKA_BROKERS: or(env.KAFKA_BROKERS, '127.0.0.1:9092'),
      // Instances share the service's database and consumer group (KAFKA_CONSUMER_GROUP unset:
      // `<service>-service`); the client id and the trace resource tell them apart.
      KAFKA_CLIENT_ID: instance === 1 ? `${service}-service` : `${service}-service-${instance}`,
      SMTP_URL: or(env.SMTP_URL, 'smtp://127.0.0.1:1025'),
      OTEL_SERVICE_NAME: `${service}-service`,
      OTEL_RESOURCE_ATTRIBUTES: [env.OTEL_RESOURCE_ATTRIBUTES, `service.instance.id=${name}`]
        .filter(Boolean)
        .join(','),
      OTEL_TRACES_EXPORTER: or(env.OTEL_TRACES_EXPORTER, 'zipkin'),
      // Every trace a request starts (curl, the console's form); a request that brings a
      // traceparent keeps its sampled flag, which is how a load run traces only a fraction
      // (loadgen --trace-ratio; docs/observability.md#sampling-under-load).
      OTEL_TRACES_SAMPLER: or(env.OTEL_TRACES_SAMPLER, 'parentbased_always_on'),
      OTEL_EXPORTER_ZIPKIN_ENDPOINT: or(
        env.OTEL_EXPORTER_ZIPKIN_ENDPOINT,
        'http://127.0.0.1:9411/api/v2/spans',
      ),
      LOG_FORMAT: or(env.LOG_FORMAT, 'json'),
    }),
  };
}

/** The console's environment contract: apps/console (PORT, HOST, *_SERVICE_URL lists, UI links). */
function consoleProcess(options: StackPlanOptions, services: readonly StackProcess[]): StackProcess {
  const { env } = options;
  const entry = 'dist/apps/console/src/main.js';
  const baseUrl = `http://127.0.0.1:${ConsolePort}`;
  const urls = Object.fromEntries(
    ServiceNames.map((service) => [
      `${service.toUpperCase()}_SERVICE_URL`,
      services
        .filter((p) => p.service === service)
        .map((p) => p.baseUrl)
        .join(','),
    ]),
  );
  return {
    service: 'console',
    label: 'console',
    port: ConsolePort,
    baseUrl,
    readyUrl: `${baseUrl}/health`,
    entry,
    spec: spec(options, 'console', entry, {
      PORT: String(ConsolePort),
      HOST: '127.0.0.1',
      KAFKA_BROKERS: or(env.KAFKA_BROKERS, '127.0.0.1:9092'),
      ...urls,
      MAIL_UI_KIND: or(env.MAIL_UI_KIND, 'maildev'),
      MAIL_UI_URL: or(env.MAIL_UI_URL, 'http://127.0.0.1:1080'),
      TRACE_UI_URL: or(env.TRACE_UI_URL, 'http://127.0.0.1:9411'),
      TRACE_UI_KIND: or(env.TRACE_UI_KIND, 'zipkin'),
      LOG_FORMAT: or(env.LOG_FORMAT, 'json'),
    }),
  };
}

function spec(
  options: StackPlanOptions,
  name: string,
  entry: string,
  own: Record<string, string>,
): ProcessSpec {
  const inherited = Object.fromEntries(
    Object.entries(options.env).filter((pair): pair is [string, string] => pair[1] !== undefined),
  );
  // An empty CONSOLE_TOKEN would be a token anyone can send: unset means read-only.
  if (inherited.CONSOLE_TOKEN === '') delete inherited.CONSOLE_TOKEN;
  return {
    name,
    command: process.execPath,
    args: [entry],
    cwd: options.repoRoot,
    env: { ...inherited, ...serviceRuntimeEnv(options.repoRoot, options.env), ...own },
    logFile: join(options.repoRoot, RunDir, `${name}.log`),
    pidFile: join(options.repoRoot, RunDir, `${name}.pid`),
  };
}

function databaseUrl(env: Environment, service: ServiceName): string {
  const user = encodeURIComponent(or(env.PGUSER, 'postgres'));
  const auth = env.PGPASSWORD ? `${user}:${encodeURIComponent(env.PGPASSWORD)}` : user;
  return `postgresql://${auth}@${or(env.PGHOST, '127.0.0.1')}:${or(env.PGPORT, '5432')}/${service}_service`;
}

/** Like the shell's `${VAR:-default}`: empty counts as unset. */
const or = (value: string | undefined, fallback: string): string =>
  value === undefined || value === '' ? fallback : value;
