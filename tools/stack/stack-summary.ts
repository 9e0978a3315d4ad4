import { formatDuration, SupervisorDefaults } from '@pipeline/supervisor';
import { RunDir, type StackProcess } from './stack-plan';

export interface SummaryOptions {
  readonly elapsedMs: number;
  readonly kafkaBrokers: string;
  /** Whether the console got a CONSOLE_TOKEN (without one it is read-only). */
  readonly consoleToken: boolean;
}

/** The table printed once the stack is up: today's URLs plus the console, the extra instances and the pid files. */
export function renderSummary(plan: readonly StackProcess[], options: SummaryOptions): string {
  const width = Math.max(18, ...plan.map((p) => p.label.length)) + 2;
  const row = (label: string, value: string): string => `  ${label.padEnd(width)} ${value}`;
  const consoleNote = options.consoleToken
    ? '(CONSOLE_TOKEN set: actions enabled)'
    : '(read-only: start with CONSOLE_TOKEN=<secret> to act)';
  const names = plan.map((p) => p.spec.name).join(', ');
  const example = plan.find((p) => p.service === 'payment')?.spec.name ?? plan[0]?.spec.name ?? 'payment';
  return [
    '',
    `  The pipeline is up (${formatDuration(options.elapsedMs)}).`,
    '',
    ...plan.map((p) => row(p.label, p.service === 'console' ? `${p.baseUrl}   ${consoleNote}` : p.baseUrl)),
    row('health', 'http://127.0.0.1:<port>/health/ready'),
    row('mail UI', 'http://127.0.0.1:1080'),
    row('traces (Zipkin)', 'http://127.0.0.1:9411'),
    row('Kafka', `${options.kafkaBrokers}   (npm run kafka:topics -- --list)`),
    row('logs', `${RunDir}/<name>.log   (${names})`),
    row('pid files', `${RunDir}/<name>.pid   (kill -9 $(cat ${RunDir}/${example}.pid): restarted)`),
    '',
    `  A process that exits unexpectedly is restarted, after ${formatDuration(SupervisorDefaults.initialBackoffMs)}, doubling to ${formatDuration(SupervisorDefaults.maxBackoffMs)} on failures in a`,
    '  row; one stopped cleanly (kill <pid>) stays down until kill -USR2 $(cat .run/stack.pid).',
    '  Ctrl-C stops everything this command started.',
    '',
  ].join('\n');
}
