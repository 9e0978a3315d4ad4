import { deadLetterTopic, ServiceNames, type ServiceName } from '@pipeline/contracts';
import {
  deadLetterPosition,
  DeadLetterTopicNotFoundError,
  filterDeadLetters,
  parseIsoInstant,
  planReplay,
  readDeadLetters,
  sendReplay,
  type DeadLetterFilter,
  type DeadLetterRecord,
} from '@pipeline/dead-letters';
import type { FastifyInstance } from 'fastify';
import type { ConsoleDeps } from '../console-deps';
import { registerAction } from '../http/actions';
import { html, type SafeHtml } from './html';
import { actionButton, csrfField, layout, type PageContext, sendHtml, tableHead } from './layout';

/** The filter fields, as the list's query string and the redrive form both carry them. */
interface FilterFields {
  readonly error?: string;
  readonly type?: string;
  readonly since?: string;
  readonly until?: string;
}

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

const payloadOf = (record: DeadLetterRecord): string => {
  if (record.value === null) return '(no value: a tombstone)';
  const raw = record.value.toString('utf8');
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return `${raw.slice(0, 2000)}\n(not JSON: ${record.value.length} bytes, hex ${record.value.subarray(0, 64).toString('hex')})`;
  }
};

function recordRow(record: DeadLetterRecord): SafeHtml {
  const position = deadLetterPosition(record);
  return html`<tr
    data-position="${position}"
    data-event-id="${record.eventId ?? ''}"
    data-original="${record.originalTopic ?? ''}/${record.originalPartition ?? ''}/${record.originalOffset ?? ''}"
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
    <td class="num">${record.partition}/${record.offset}</td>
    <td>
      ${record.eventType ?? '–'}<br /><small><code>${record.eventId ?? '–'}</code></small>
    </td>
    <td data-field="original">
      ${record.originalTopic ?? '–'} / ${record.originalPartition ?? '–'} / ${record.originalOffset ?? '–'}
    </td>
    <td data-field="error">${record.error ?? '–'}</td>
    <td data-field="error-class">${record.errorClass ?? '–'}</td>
    <td class="num" data-field="attempts">${record.attempts ?? '–'}</td>
    <td data-field="failed-at">${record.failedAt ?? '–'}</td>
    <td data-field="group">${record.consumerGroup ?? '–'}</td>
    <td>
      <details>
        <summary>payload</summary>
        <pre>${payloadOf(record)}</pre>
      </details>
    </td>
  </tr>`;
}

function listPage(
  context: PageContext,
  service: ServiceName,
  topic: string,
  all: number,
  records: readonly DeadLetterRecord[],
  fields: FilterFields,
): SafeHtml {
  const hidden = (['error', 'type', 'since', 'until'] as const).map((name) =>
    fields[name] ? html`<input type="hidden" name="${name}" value="${fields[name]}" />` : '',
  );
  return html`<p>
      <code>${topic}</code>: ${all} record${all === 1 ? '' : 's'}, ${records.length} shown. Redrive produces
      them back onto their original topic with the diagnostic headers removed, exactly as
      <code>npm run dlt -- replay</code> does; the consumers' inbox drops an event they already applied.
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
      ${csrfField(context)}${hidden}
      ${actionButton(context, 'Redrive selected', html`name="scope" value="selected"`)}
      ${actionButton(context, `Redrive all ${records.length} shown`, html`name="scope" value="all"`)}
    </form>
    <table id="dead-letters">
      ${tableHead('Select', 'Partition/offset', 'Event', 'original_topic / partition / offset', 'error', 'error_class', 'attempts', 'failed_at', 'consumer_group', 'Payload')}
      <tbody>
        ${records.map(recordRow)}
      </tbody>
    </table>`;
}

export function registerDeadLetterPages(app: FastifyInstance, deps: ConsoleDeps): void {
  const { access, kafka, metrics, config } = deps;
  const topicOf = (service: ServiceName) => config.kafka.topicPrefix + deadLetterTopic(service);
  const snapshot = async (service: ServiceName) => {
    try {
      return (await readDeadLetters(kafka, { topic: topicOf(service) })).records;
    } catch (error) {
      if (error instanceof DeadLetterTopicNotFoundError) return [];
      throw error;
    }
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
      const records = await snapshot(service);
      const shown = filterDeadLetters(records, toFilter(fields));
      const context = access.pageContext(request, reply);
      const page = listPage(context, service, topicOf(service), records.length, shown, fields);
      return sendHtml(reply, layout(`Dead letters: ${service}`, context, '/dead-letters', page));
    },
  );

  registerAction(app, access, 'redrive', '/dead-letters/:service/redrive', async (request) => {
    const service = serviceOf((request.params as { service: string }).service);
    const body = (request.body ?? {}) as FilterFields & { scope?: string; position?: string | string[] };
    const positions =
      body.position === undefined ? [] : Array.isArray(body.position) ? body.position : [body.position];
    if (body.scope !== 'all' && positions.length === 0)
      throw badRequest('position: select at least one record, or redrive all');
    const filter = { ...toFilter(body), ...(body.scope === 'all' ? {} : { positions }) };
    const selected = filterDeadLetters(await snapshot(service), filter);
    const plan = planReplay(selected);
    const result = await sendReplay(kafka, plan);
    const content = html`<p role="status" id="redrive-result">
        Replayed ${result.replayed} record${result.replayed === 1 ? '' : 's'}
        ${result.byTopic.map((t) => html`(${t.count} to <code>${t.value}</code>) `)}from
        <code>${topicOf(service)}</code>.
      </p>
      ${plan.skipped.length > 0 ? html`<p>Skipped ${plan.skipped.length}: ${plan.skipped.map((s) => html`${deadLetterPosition(s.source)} (${s.reason}) `)}</p>` : ''}
      <p><a href="/dead-letters/${service}">Back to ${service}'s dead letters</a></p>`;
    return {
      changed: {
        service,
        replayed: result.replayed,
        byTopic: result.byTopic,
        skipped: plan.skipped.length,
        positions: selected.map(deadLetterPosition),
      },
      page: { title: `Redrive: ${service}`, current: '/dead-letters', content },
      json: {
        replayed: result.replayed,
        byTopic: result.byTopic,
        skipped: plan.skipped.map((s) => ({ position: deadLetterPosition(s.source), reason: s.reason })),
      },
    };
  });
}
