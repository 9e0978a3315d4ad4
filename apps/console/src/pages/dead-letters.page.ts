import { deadLetterTopic, ServiceNames, type ServiceName } from '@pipeline/contracts';
import {
  filterDeadLetters,
  groupCopies,
  parseIsoInstant,
  type DeadLetterCopies,
  type DeadLetterFilter,
  type DeadLetterRecord,
} from '@pipeline/dead-letters';
import type { FastifyInstance } from 'fastify';
import type { ConsoleDeps } from '../console-deps';
import {
  formatCursor,
  PageCollector,
  pageRanges,
  parseCursor,
  positionRanges,
  type Cursor,
  type OffsetRange,
} from '../dead-letters/dead-letter-page';
import { DeadLetterReader } from '../dead-letters/dead-letter-reader';
import { Redrive } from '../dead-letters/dead-letter-redrive';
import { registerAction } from '../http/actions';
import { deadLetterRow } from './dead-letter-row.view';
import { html, type SafeHtml } from './html';
import { actionButton, csrfField, layout, type PageContext, sendHtml, tableHead } from './layout';

/** The filter fields, as the list's query string and the redrive form both carry them. */
interface FilterFields {
  readonly error?: string;
  readonly type?: string;
  readonly since?: string;
  readonly until?: string;
  /** The page's cursor: it holds the records below these offsets (none: the newest). */
  readonly before?: string;
}

const FILTER_NAMES = ['error', 'type', 'since', 'until'] as const;

const badRequest = (message: string) => Object.assign(new Error(message), { statusCode: 400 });

function serviceOf(name: string): ServiceName {
  if (!ServiceNames.includes(name as ServiceName)) {
    throw Object.assign(new Error(`unknown service "${name}" (expected one of ${ServiceNames.join(', ')})`), {
      statusCode: 404,
    });
  }
  return name as ServiceName;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

export function toFilter(fields: FilterFields): DeadLetterFilter {
  const instant = (name: 'since' | 'until'): Date | undefined => {
    const value = text(fields[name]);
    if (value === undefined) return undefined;
    const date = parseIsoInstant(value);
    if (date === undefined)
      throw badRequest(`${name}: "${value}" is not an ISO-8601 date or date-time with a zone`);
    return date;
  };
  const since = instant('since');
  const until = instant('until');
  const error = text(fields.error);
  const type = text(fields.type);
  return {
    ...(error !== undefined ? { errorContains: error } : {}),
    ...(type !== undefined ? { eventType: type } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
  };
}

const cursorOf = (fields: FilterFields): Cursor | undefined => {
  const before = text(fields.before);
  return before === undefined ? undefined : parseCursor(before);
};

/** The list's URL with the same filter, on the page below `before`. */
function pageUrl(service: ServiceName, fields: FilterFields, before?: Cursor): string {
  const query = new URLSearchParams();
  for (const name of FILTER_NAMES) if (text(fields[name]) !== undefined) query.set(name, text(fields[name])!);
  if (before !== undefined) query.set('before', formatCursor(before));
  const search = query.toString();
  return `/dead-letters/${service}${search === '' ? '' : `?${search}`}`;
}

interface DeadLetterPage {
  readonly topic: string;
  /** Offsets in the log (records, unless transaction markers sit among them). */
  readonly total: bigint;
  /** This page's cursor (it holds records below these offsets), and the next page's (none: the end). */
  readonly ends: Cursor;
  readonly next: Cursor | undefined;
  /** Newest first. */
  readonly records: readonly DeadLetterRecord[];
  /** Records fetched to build it. */
  readonly read: number;
}

/**
 * The page's dead letters, newest first, each once: copies of one the same group dead-lettered
 * again are one row (groupCopies). A row stands for its first copy that matches the filter, so
 * that redriving it selects a record the filter lets through.
 */
function shownOnPage(records: readonly DeadLetterRecord[], filter: DeadLetterFilter): DeadLetterCopies[] {
  return groupCopies(records).flatMap(({ copies }) => {
    const [first] = filterDeadLetters(copies, filter);
    return first === undefined ? [] : [{ first, copies }];
  });
}

function listPage(
  context: PageContext,
  service: ServiceName,
  page: DeadLetterPage,
  shown: readonly DeadLetterCopies[],
  fields: FilterFields,
  limits: { readonly size: number; readonly maxBytes: number },
): SafeHtml {
  const hidden = FILTER_NAMES.map((name) =>
    fields[name] ? html`<input type="hidden" name="${name}" value="${fields[name]}" />` : '',
  );
  const { total, records } = page;
  const copies = shown.reduce((sum, { copies }) => sum + copies.length - 1, 0);
  const filtered =
    shown.length + copies === records.length ? '' : html`, ${shown.length} of them matching the filter`;
  const again =
    copies === 0
      ? ''
      : html` <span data-field="page-copies">${copies}</span> of them
          ${copies === 1 ? 'is a later copy' : 'are later copies'} of a dead letter the same group wrote again
          (a crash between the dead letter and its offset commit): each dead letter is one row, and its
          <em>copies</em> column counts the copies on this page.`;
  return html`<p>
      <code>${page.topic}</code>: <span data-field="total">${total}</span> record${total === 1n ? '' : 's'}.
      This page: the ${records.length} newest${fields.before ? ' below the previous page' : ''}${filtered} (a
      page holds at most ${limits.size} records and ${Math.round(limits.maxBytes / 1024)} KiB).${again}
      Redrive produces them back onto their original topic with the diagnostic headers removed, exactly as
      <code>npm run dlt -- replay</code> does, each dead letter once; the consumers' inbox drops an event they
      already applied.
    </p>
    <form method="get" action="/dead-letters/${service}" class="row" aria-label="Filter">
      <label>Error contains <input name="error" value="${fields.error ?? ''}" /></label>
      <label>Event type <input name="type" value="${fields.type ?? ''}" placeholder="order.placed" /></label>
      <label
        >Failed since <input name="since" value="${fields.since ?? ''}" placeholder="2026-12-01T10:00Z"
      /></label>
      <label>until <input name="until" value="${fields.until ?? ''}" /></label>
      <button type="submit">Filter</button>
    </form>
    <form method="post" action="/dead-letters/${service}/redrive" id="redrive" class="row">
      ${csrfField(context)}${hidden}<input type="hidden" name="before" value="${formatCursor(page.ends)}" />
      ${actionButton(context, 'Redrive selected', html`name="scope" value="selected"`)}
      ${actionButton(context, `Redrive all ${shown.length} shown`, html`name="scope" value="all"`)}
    </form>
    <table id="dead-letters" data-read="${page.read}">
      ${tableHead('Select', 'Partition/offset', 'Event', 'original_topic / partition / offset', 'copies', 'error', 'error_class', 'attempts', 'failed_at', 'consumer_group', 'Payload')}
      <tbody>
        ${shown.map(deadLetterRow)}
      </tbody>
    </table>
    <p class="row">
      ${page.next === undefined ? html`<span>The oldest record is on this page.</span>` : html`<a href="${pageUrl(service, fields, page.next)}" rel="next">Load more (older)</a>`}
      ${fields.before ? html`<a href="${pageUrl(service, fields)}">Newest</a>` : ''}
    </p>`;
}

export function registerDeadLetterPages(app: FastifyInstance, deps: ConsoleDeps): void {
  const { access, kafka, metrics, config } = deps;
  const limits = config.deadLetterPage;
  const topicOf = (service: ServiceName) => config.kafka.topicPrefix + deadLetterTopic(service);
  const reader = new DeadLetterReader(kafka, {
    groupId: `${config.kafka.group}.dead-letters`,
    warn: (message) => app.log.warn(message),
  });

  /** The page below `cursor`: at most a page per partition is fetched, whatever the topic holds. */
  const readPage = async (topic: string, cursor: Cursor | undefined): Promise<DeadLetterPage> => {
    const watermarks = (await reader.watermarks(topic)) ?? [];
    const { ends, ranges } = pageRanges(watermarks, cursor, limits.size);
    const collector = new PageCollector(limits);
    await reader.read(topic, ranges, {
      onRecord: (read) => collector.add(read),
      onRangeEnd: () => collector.endPartition(),
    });
    const { records, next } = collector.result(ends, watermarks);
    const total = watermarks.reduce((sum, { low, high }) => sum + high - low, 0n);
    return { topic, total, ends, next, records, read: collector.read };
  };

  app.get('/dead-letters', async (request, reply) => {
    const depth = new Map<string, number>();
    for (const m of await metrics.scrapeAll())
      if (m.deadLetterDepth !== undefined) depth.set(m.service, m.deadLetterDepth);
    const rows = ServiceNames.map(
      (service) =>
        html`<tr>
          <th scope="row"><a href="/dead-letters/${service}">${service}</a></th>
          <td><code>${topicOf(service)}</code></td>
          <td class="num" data-field="depth">${depth.get(service) ?? '–'}</td>
        </tr>`,
    );
    const page = html`<p>Each service dead-letters what it cannot process to a topic of its own.</p>
      <table>
        ${tableHead('Service', 'Dead-letter topic', 'Records (from /metrics)')}
        <tbody>
          ${rows}
        </tbody>
      </table>`;
    return sendHtml(reply, layout('Dead letters', access.pageContext(request, reply), '/dead-letters', page));
  });

  app.get<{ Params: { service: string }; Querystring: FilterFields }>(
    '/dead-letters/:service',
    async (request, reply) => {
      const service = serviceOf(request.params.service);
      const fields = request.query;
      const filter = toFilter(fields);
      const page = await readPage(topicOf(service), cursorOf(fields));
      const shown = shownOnPage(page.records, filter);
      const context = access.pageContext(request, reply);
      const content = listPage(context, service, page, shown, fields, limits);
      return sendHtml(reply, layout(`Dead letters: ${service}`, context, '/dead-letters', content));
    },
  );

  registerAction(app, access, 'redrive', '/dead-letters/:service/redrive', async (request) => {
    const service = serviceOf((request.params as { service: string }).service);
    const body = (request.body ?? {}) as FilterFields & { scope?: string; position?: string | string[] };
    const positions =
      body.position === undefined ? [] : Array.isArray(body.position) ? body.position : [body.position];
    if (body.scope !== 'all' && positions.length === 0)
      throw badRequest('position: select at least one record, or redrive all');
    const topic = topicOf(service);
    const redrive = new Redrive(
      kafka,
      { ...toFilter(body), ...(body.scope === 'all' ? {} : { positions }) },
      limits,
    );
    const cursor = cursorOf(body);
    if (body.scope !== 'all') {
      // Each selected record is read alone: nothing else of the topic is fetched.
      const watermarks = (await reader.watermarks(topic)) ?? [];
      const held = ({ partition, from }: OffsetRange) =>
        watermarks.some((w) => w.partition === partition && w.low <= from && from < w.high);
      await reader.read(topic, positionRanges(topic, positions, limits.size).filter(held), {
        onRecord: (read) => redrive.add(read),
      });
    } else if (cursor !== undefined) {
      // "All shown": the page on the screen, read again from its cursor.
      await redrive.addAll((await readPage(topic, cursor)).records);
    } else {
      // A script without a page: the whole topic, oldest first, a page at a time.
      const ranges = ((await reader.watermarks(topic)) ?? [])
        .filter(({ low, high }) => low < high)
        .map(({ partition, low, high }) => ({ partition, from: low, to: high }));
      await reader.read(topic, ranges, { onRecord: (read) => redrive.add(read) });
    }
    const result = await redrive.finish();
    const content = html`<p role="status" id="redrive-result">
        Replayed ${result.replayed} record${result.replayed === 1 ? '' : 's'}
        ${result.byTopic.map((t) => html`(${t.count} to <code>${t.value}</code>) `)}from
        <code>${topic}</code>.
      </p>
      ${result.skipped.length > 0 ? html`<p>Skipped ${result.skipped.length}: ${result.skipped.map((s) => html`${s.position} (${s.reason}) `)}</p>` : ''}
      ${result.duplicates.length > 0 ? html`<p id="redrive-duplicates">Not sent again: ${result.duplicates.length} later ${result.duplicates.length === 1 ? 'copy' : 'copies'} of a dead letter already redriven here: ${result.duplicates.map((d) => html`${d.position} (a copy of ${d.firstCopy}) `)}</p>` : ''}
      <p><a href="/dead-letters/${service}">Back to ${service}'s dead letters</a></p>`;
    return {
      changed: {
        service,
        replayed: result.replayed,
        byTopic: result.byTopic,
        skipped: result.skipped.length,
        duplicates: result.duplicates.length,
        positions: result.positions,
      },
      page: { title: `Redrive: ${service}`, current: '/dead-letters', content },
      json: {
        replayed: result.replayed,
        byTopic: result.byTopic,
        skipped: result.skipped,
        duplicates: result.duplicates,
      },
    };
  });
}
