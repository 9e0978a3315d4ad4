/**
 * The stack `npm run stack` runs, as the soak sees it: its processes (by the supervisor's pid
 * files, or by the ports they listen on when the stack was started from another checkout), their
 * memory and outbox backlog, and the options under which the bench's ramp can run against it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ServiceNames, type ServiceName } from '@pipeline/contracts';
import { parseMetrics, sum } from '@pipeline/observability';
import type { StackOptions } from '../bench/stack-under-test';
import { pidListeningOn } from '../bench/proc-stats';
import { ConsolePort, instancePort, RunDir, ServicePorts } from '../stack/stack-plan';

export interface StackProcessRef {
  /** The supervisor's name for it: `order`, `payment-2`, `console`. */
  readonly name: string;
  readonly service: ServiceName | 'console';
  readonly pid: number;
  readonly port: number;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** `payment-2` -> payment-service's second instance and its port; undefined for other files. */
export function parseProcessName(name: string): Omit<StackProcessRef, 'pid'> | undefined {
  if (name === 'console') return { name, service: 'console', port: ConsolePort };
  const match = /^([a-z]+)(?:-(\d+))?$/.exec(name);
  const service = ServiceNames.find((s) => s === match?.[1]);
  if (!match || !service) return undefined;
  return { name, service, port: instancePort(service, Number(match[2] ?? 1)) };
}

function fromPidFiles(repoRoot: string): StackProcessRef[] {
  const dir = join(repoRoot, RunDir);
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.pid'));
  } catch {
    return [];
  }
  return files.flatMap((file) => {
    const ref = parseProcessName(file.slice(0, -'.pid'.length));
    const pid = Number(readFileSync(join(dir, file), 'utf8').trim());
    return ref && Number.isInteger(pid) && alive(pid) ? [{ ...ref, pid }] : [];
  });
}

function fromPorts(): StackProcessRef[] {
  const listed = [
    ...ServiceNames.map((service) => ({ name: service, service, port: ServicePorts[service] })),
    { name: 'console', service: 'console' as const, port: ConsolePort },
  ];
  return listed.flatMap((ref) => {
    const pid = pidListeningOn(ref.port);
    return pid === undefined ? [] : [{ ...ref, pid }];
  });
}

/** The stack's running processes, services first in pipeline order, then the console. */
export function stackProcesses(repoRoot: string): StackProcessRef[] {
  const found = fromPidFiles(repoRoot);
  const refs = found.some((p) => p.service !== 'console') ? found : fromPorts();
  const order = (p: StackProcessRef): number =>
    p.service === 'console' ? ServiceNames.length : ServiceNames.indexOf(p.service);
  return refs.sort((a, b) => order(a) - order(b) || a.port - b.port);
}

/** pipeline_outbox_backlog_events from a service's /metrics; undefined when it does not answer. */
export async function outboxBacklog(port: number): Promise<number | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) return undefined;
    return sum(parseMetrics(await response.text()), 'pipeline_outbox_backlog_events');
  } catch {
    return undefined;
  }
}

/** The local stack described as the bench describes the stack it starts: no prefixes, port 3000 on. */
export function localStackOptions(repoRoot: string, outDir: string, kafkaBrokers: string): StackOptions {
  return {
    repoRoot,
    pg: {
      host: process.env.PGHOST ?? '127.0.0.1',
      port: Number(process.env.PGPORT ?? 5432),
      user: process.env.PGUSER ?? 'postgres',
    },
    dbPrefix: '',
    portBase: ServicePorts.order,
    kafkaBrokers,
    topicPrefix: process.env.KAFKA_TOPIC_PREFIX ?? '',
    groupPrefix: '',
    mailSink: 'external',
    smtpUrl: process.env.SMTP_URL ?? 'smtp://127.0.0.1:1025',
    logDir: outDir,
    env: {},
  };
}
