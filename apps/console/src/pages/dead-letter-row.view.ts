import type { RawHeaderValue } from '@pipeline/contracts';
import { deadLetterPosition, type DeadLetterCopies, type DeadLetterRecord } from '@pipeline/dead-letters';
import { html, type SafeHtml } from './html';

/** Headers listed per record, and characters per value: any client may write a thousand. */
export const MAX_HEADERS_SHOWN = 50;
export const MAX_HEADER_CHARS = 200;

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** A header value as a person reads it: text when it is UTF-8, hex when not, and null said so. */
export function headerText(value: RawHeaderValue): string {
  if (value === null) return '(null)';
  if (typeof value === 'string') return clip(value, MAX_HEADER_CHARS);
  if (value.length === 0) return '(empty)';
  try {
    return clip(STRICT_UTF8.decode(value), MAX_HEADER_CHARS);
  } catch {
    const hex = value.subarray(0, MAX_HEADER_CHARS / 2).toString('hex');
    return `(not UTF-8, ${value.length} bytes) 0x${hex}${value.length > MAX_HEADER_CHARS / 2 ? '…' : ''}`;
  }
}

/** Every header of a record as `[name, value]`, a repeated name once per value, at most `max`. */
export function headerLines(
  record: DeadLetterRecord,
  max = MAX_HEADERS_SHOWN,
): { lines: [string, string][]; total: number } {
  const lines: [string, string][] = [];
  let total = 0;
  for (const [name, raw] of Object.entries(record.rawHeaders)) {
    if (raw === undefined) continue;
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      total += 1;
      if (lines.length < max) lines.push([clip(name, MAX_HEADER_CHARS), headerText(value)]);
    }
  }
  return { lines, total };
}

export function payloadOf(record: DeadLetterRecord): string {
  if (record.value === null)
    return record.eventId === undefined
      ? '(no value and no ce_id: its error and headers say what was kept)'
      : '(no value: a tombstone)';
  const raw = record.value.toString('utf8');
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return `${raw.slice(0, 2000)}\n(not JSON: ${record.value.length} bytes, hex ${record.value.subarray(0, 64).toString('hex')})`;
  }
}

const at = (record: DeadLetterRecord): string => `${record.partition}/${record.offset}`;

function headersList(record: DeadLetterRecord): SafeHtml {
  const { lines, total } = headerLines(record);
  const more = total > lines.length ? html`<li>… and ${total - lines.length} more</li>` : '';
  return html`<details data-field="headers">
    <summary>headers (${total})</summary>
    <ul>
      ${lines.map(([name, value]) => html`<li><code>${name}</code>: ${value}</li>`)}${more}
    </ul>
  </details>`;
}

/**
 * One dead letter: `shown` is the copy the row stands for (checked, it is the one redriven), and
 * `copies` every copy of it on the page (one unless the same group dead-lettered it again).
 */
export function deadLetterRow({ first: shown, copies }: DeadLetterCopies): SafeHtml {
  const position = deadLetterPosition(shown);
  const others = copies.filter((copy) => copy !== shown);
  return html`<tr
    data-position="${position}"
    data-event-id="${shown.eventId ?? ''}"
    data-original="${shown.originalTopic ?? ''}/${shown.originalPartition ?? ''}/${shown.originalOffset ?? ''}"
    data-copies="${copies.length}"
  >
    <td>
      <input
        type="checkbox"
        name="position"
        value="${position}"
        form="redrive"
        aria-label="select ${position}"
      />
    </td>
    <td class="num">${at(shown)}</td>
    <td>
      ${shown.eventType ?? '–'}<br /><small><code>${shown.eventId ?? '–'}</code></small>
    </td>
    <td data-field="original">
      ${shown.originalTopic ?? '–'} / ${shown.originalPartition ?? '–'} /
      ${shown.originalOffset ?? '–'}${shown.originalLastOffset === undefined ? '' : `..${shown.originalLastOffset}`}
    </td>
    <td class="num" data-field="copies">
      ${copies.length}${others.length > 0 ? html`<br /><small>also at ${others.map(at).join(', ')}</small>` : ''}
    </td>
    <td data-field="error">${shown.error ?? '–'}</td>
    <td data-field="error-class">${shown.errorClass ?? '–'}</td>
    <td class="num" data-field="attempts">${shown.attempts ?? '–'}</td>
    <td data-field="failed-at">${shown.failedAt ?? '–'}</td>
    <td data-field="group">${shown.consumerGroup ?? '–'}</td>
    <td>
      <details>
        <summary>payload</summary>
        <pre>${payloadOf(shown)}</pre>
      </details>
      ${headersList(shown)}
    </td>
  </tr>`;
}
