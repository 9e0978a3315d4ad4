import type { DeadLetterCopies } from './dead-letter-copies';
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
  readonly originalLastOffset: string | undefined;
  readonly errorClass: string | undefined;
  readonly attempts: number | undefined;
  readonly failedAt: string | undefined;
  readonly consumerGroup: string | undefined;
  readonly error: string | undefined;
  /** How many records of the topic are this dead letter: 1 unless it was dead-lettered again. */
  readonly copies: number;
  /** `<partition>/<offset>` of the other copies, which replay does not send again. */
  readonly otherCopies: readonly string[];
}

const at = (record: DeadLetterRecord): string => `${record.partition}/${record.offset}`;

/** A dead letter as one row, shown at its first copy (groupCopies). */
export const toDeadLetterRow = ({ first: record, copies }: DeadLetterCopies): DeadLetterRow => ({
  partition: record.partition,
  offset: record.offset,
  key: record.key === null ? null : record.key.toString('utf8'),
  eventId: record.eventId,
  eventType: record.eventType,
  originalTopic: record.originalTopic,
  originalPartition: record.originalPartition,
  originalOffset: record.originalOffset,
  originalLastOffset: record.originalLastOffset,
  errorClass: record.errorClass,
  attempts: record.attempts,
  failedAt: record.failedAt,
  consumerGroup: record.consumerGroup,
  error: record.error,
  copies: copies.length,
  otherCopies: copies.slice(1).map(at),
});

// C0 and C1 controls: any client may write a header, and a terminal obeys escape sequences.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * One line, at most `width` characters: error messages can span lines (stack traces), and a
 * header written by any client may hold control characters (shown as U+FFFD).
 */
export function oneLine(text: string | undefined, width: number): string {
  if (text === undefined) return '-';
  const flat = text.replace(/\s+/g, ' ').replace(CONTROL, '\uFFFD').trim();
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
  const { total, records, duplicateCopies } = summary;
  const copies =
    duplicateCopies === 0
      ? ''
      : ` (${records} records: ${duplicateCopies} ${duplicateCopies === 1 ? 'is a later copy' : 'are later copies'}` +
        ' of a record the same group dead-lettered again, counted and listed once)';
  return [
    `${topic}: ${total} dead-lettered record${total === 1 ? '' : 's'}${copies}`,
    `failed_at: oldest ${summary.oldestFailedAt ?? '-'}, newest ${summary.newestFailedAt ?? '-'}`,
    '',
    ...countLines('error', summary.byError),
    ...countLines('error_class', summary.byErrorClass),
    ...countLines('original topic', summary.byOriginalTopic),
    ...countLines('event type', summary.byEventType),
  ];
}

/** `<topic>/<partition>/<offset>`, `..<last offset>` for the letter of an undecodable batch. */
const originOf = (record: DeadLetterRecord): string => {
  if (record.originalTopic === undefined) return '-';
  const last = record.originalLastOffset === undefined ? '' : `..${record.originalLastOffset}`;
  return oneLine(
    `${record.originalTopic}/${record.originalPartition ?? '?'}/${record.originalOffset ?? '?'}${last}`,
    120,
  );
};

/** A header value in a table cell: one bounded line. */
const cell = (text: string | undefined): string => oneLine(text, 80);

/** One row per dead letter, at its first copy; COPIES counts the records of it (1: dead-lettered once). */
export function renderRecords(groups: readonly DeadLetterCopies[], errorWidth = 60): string[] {
  const table = renderTable(
    ['PARTITION/OFFSET', 'CE_ID', 'CE_TYPE', 'ORIGINAL', 'COPIES', 'CLASS', 'ATTEMPTS', 'FAILED_AT', 'ERROR'],
    groups.map(({ first: record, copies }) => [
      at(record),
      cell(record.eventId),
      cell(record.eventType),
      originOf(record),
      String(copies.length),
      cell(record.errorClass),
      record.attempts === undefined ? '-' : String(record.attempts),
      cell(record.failedAt),
      oneLine(record.error, errorWidth),
    ]),
  );
  const again = groups.filter(({ copies }) => copies.length > 1);
  if (again.length === 0) return table;
  return [
    ...table,
    '',
    'dead-lettered more than once (a crash between the dead letter and the offset commit):',
    ...again.map(
      ({ first, copies }) =>
        `  ${at(first)} ${originOf(first)}: also at ${copies.slice(1).map(at).join(', ')}`,
    ),
  ];
}

export function renderSkipped(plan: ReplayPlan): string[] {
  return plan.skipped.map(
    ({ source, reason }) => `skipped ${at(source)} (ce_id ${cell(source.eventId)}): ${oneLine(reason, 400)}`,
  );
}

export function renderDuplicates(plan: ReplayPlan): string[] {
  return plan.duplicates.map(
    ({ source, firstCopy }) =>
      `not sent again ${at(source)} (ce_id ${cell(source.eventId)}): a later copy of ${firstCopy}, the same original dead-lettered again`,
  );
}

export function renderPlan(plan: ReplayPlan): string[] {
  return renderTable(
    ['PARTITION/OFFSET', 'CE_ID', 'CE_TYPE', 'TO TOPIC'],
    plan.items.map(({ source, topic }) => [
      at(source),
      cell(source.eventId),
      cell(source.eventType),
      cell(topic),
    ]),
  );
}

export function renderReplayResult(result: ReplayResult, verb = 'replayed'): string[] {
  return [
    `${verb} ${result.replayed} record${result.replayed === 1 ? '' : 's'}`,
    ...result.byTopic.map(({ value, count }) => `  ${String(count).padStart(6)}  ${value}`),
  ];
}
