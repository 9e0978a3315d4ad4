import type { DeadLetterRecord } from './dead-letter-record';
import type { Count, DeadLetterSummary } from './dead-letter-summary';
import type { ReplayPlan, ReplayResult } from './replay';

/** A dead-lettered record as `dlt list` shows it (and prints with `--json`). */
export interface DeadLetterRow {
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  readonly eventId: string | undefined;
  readonly eventType: string | undefined;
  readonly originalTopic: string | undefined;
  readonly originalPartition: number | undefined;
  readonly originalOffset: string | undefined;
  readonly errorClass: string | undefined;
  readonly attempts: number | undefined;
  readonly failedAt: string | undefined;
  readonly consumerGroup: string | undefined;
  readonly error: string | undefined;
}

export const toDeadLetterRow = (record: DeadLetterRecord): DeadLetterRow => ({
  partition: record.partition,
  offset: record.offset,
  key: record.key === null ? null : record.key.toString('utf8'),
  eventId: record.eventId,
  eventType: record.eventType,
  originalTopic: record.originalTopic,
  originalPartition: record.originalPartition,
  originalOffset: record.originalOffset,
  errorClass: record.errorClass,
  attempts: record.attempts,
  failedAt: record.failedAt,
  consumerGroup: record.consumerGroup,
  error: record.error,
});

/** One line, at most `width` characters: error messages can span lines (stack traces). */
export function oneLine(text: string | undefined, width: number): string {
  if (text === undefined) return '-';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}

export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

const countLines = (title: string, counts: readonly Count[]): string[] => [
  `by ${title}:`,
  ...counts.map(({ value, count }) => `  ${String(count).padStart(6)}  ${oneLine(value, 100)}`),
];

export function renderSummary(topic: string, summary: DeadLetterSummary): string[] {
  if (summary.total === 0) return [`${topic}: no dead-lettered records`];
  return [
    `${topic}: ${summary.total} dead-lettered record${summary.total === 1 ? '' : 's'}`,
    `failed_at: oldest ${summary.oldestFailedAt ?? '-'}, newest ${summary.newestFailedAt ?? '-'}`,
    '',
    ...countLines('error', summary.byError),
    ...countLines('error_class', summary.byErrorClass),
    ...countLines('original topic', summary.byOriginalTopic),
    ...countLines('event type', summary.byEventType),
  ];
}

const originOf = (record: DeadLetterRecord): string =>
  record.originalTopic === undefined
    ? '-'
    : `${record.originalTopic}/${record.originalPartition ?? '?'}/${record.originalOffset ?? '?'}`;

export function renderRecords(records: readonly DeadLetterRecord[], errorWidth = 60): string[] {
  return renderTable(
    ['PARTITION/OFFSET', 'CE_ID', 'CE_TYPE', 'ORIGINAL', 'CLASS', 'ATTEMPTS', 'FAILED_AT', 'ERROR'],
    records.map((record) => [
      `${record.partition}/${record.offset}`,
      record.eventId ?? '-',
      record.eventType ?? '-',
      originOf(record),
      record.errorClass ?? '-',
      record.attempts === undefined ? '-' : String(record.attempts),
      record.failedAt ?? '-',
      oneLine(record.error, errorWidth),
    ]),
  );
}

export function renderSkipped(plan: ReplayPlan): string[] {
  return plan.skipped.map(
    ({ source, reason }) =>
      `skipped ${source.partition}/${source.offset} (ce_id ${source.eventId ?? '-'}): ${reason}`,
  );
}

export function renderPlan(plan: ReplayPlan): string[] {
  return renderTable(
    ['PARTITION/OFFSET', 'CE_ID', 'CE_TYPE', 'TO TOPIC'],
    plan.items.map(({ source, topic }) => [
      `${source.partition}/${source.offset}`,
      source.eventId ?? '-',
      source.eventType ?? '-',
      topic,
    ]),
  );
}

export function renderReplayResult(result: ReplayResult, verb = 'replayed'): string[] {
  return [
    `${verb} ${result.replayed} record${result.replayed === 1 ? '' : 's'}`,
    ...result.byTopic.map(({ value, count }) => `  ${String(count).padStart(6)}  ${value}`),
  ];
}
