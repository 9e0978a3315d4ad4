import type { DestinationStream } from 'pino';

/** Printed in the line's head, not again as key=value. */
const HEAD_FIELDS = new Set(['level', 'time', 'service', 'context', 'msg', 'pid', 'hostname', 'stack']);

/**
 * `LOG_FORMAT=pretty`: each JSON line pino writes becomes one readable line,
 * `12:00:00.123 INFO  [order-service] Bootstrap: listening ... trace_id=... order_id=...`,
 * with a stack trace (if any) on the lines after it. Dependency-free; for terminals, not machines.
 */
export function prettyDestination(out: DestinationStream): DestinationStream {
  return {
    write(line: string): void {
      out.write(formatPretty(line));
    },
  };
}

export function formatPretty(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const text = (key: string): string => {
    const value = entry[key];
    return typeof value === 'string' ? value : '';
  };
  const context = text('context') === '' ? '' : `${text('context')}: `;
  const fields = Object.entries(entry)
    .filter(([key]) => !HEAD_FIELDS.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const head = [
    text('time').slice(11, 23),
    text('level').toUpperCase().padEnd(5),
    `[${text('service')}]`,
    `${context}${text('msg')}`,
    ...fields,
  ];
  const stack = text('stack') === '' ? '' : `\n${text('stack')}`;
  return `${head.filter(Boolean).join(' ')}${stack}\n`;
}
