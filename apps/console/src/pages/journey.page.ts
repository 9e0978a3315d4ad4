import { emailMessageIdFor } from '@pipeline/contracts';
import type { FastifyInstance } from 'fastify';
import type { ConsoleDeps } from '../console-deps';
import { causalOrder, type KeptEvent } from '../flow/order-store';
import type { OrderView } from '../http/order-api';
import { findEmails, sampledTraceId, traceUrl, type SentEmail } from '../journey/links';
import { html, type SafeHtml } from './html';
import { layout, sendHtml, tableHead } from './layout';

const ORDER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const OUTCOMES = new Set(['order.confirmed', 'order.cancelled']);

/** A row of the journey: read from the log by the console, or from order-service's timeline. */
interface JourneyEvent {
  readonly type: string;
  readonly topic: string;
  readonly partition: number | null;
  readonly offset: string | null;
  readonly id: string | null;
  readonly causationId: string | null;
  readonly time: string;
  readonly source: string;
}

const fromFeed = (event: KeptEvent): JourneyEvent => ({
  type: event.type,
  topic: event.topic,
  partition: event.partition,
  offset: event.offset,
  id: event.id,
  causationId: event.causationId ?? null,
  time: event.time,
  source: event.source,
});

/** When the console has not seen the order (older than its history), order-service's timeline. */
const fromTimeline = (order: OrderView): JourneyEvent[] =>
  order.timeline.map((entry) => ({
    type: entry.type,
    topic: entry.topic ?? '?',
    partition: entry.partition ?? null,
    offset: entry.offset ?? null,
    id: entry.eventId ?? null,
    causationId: null,
    time: entry.at,
    source: '(from order-service timeline)',
  }));

function transitions(events: readonly JourneyEvent[]): SafeHtml {
  const steps = events
    .filter((event) => event.type === 'order.placed' || OUTCOMES.has(event.type))
    .map((event) => {
      const state =
        event.type === 'order.placed'
          ? 'PENDING'
          : event.type === 'order.confirmed'
            ? 'CONFIRMED'
            : 'CANCELLED';
      return html`<li>
        <span class="status status-${state.toLowerCase()}">${state}</span> at
        <time datetime="${event.time}">${event.time}</time> (${event.type})
      </li>`;
    });
  return steps.length === 0
    ? html`<p>No state transition seen yet.</p>`
    : html`<ol class="transitions">
        ${steps}
      </ol>`;
}

function eventsTable(events: readonly JourneyEvent[]): SafeHtml {
  const rows = events.map(
    (event, index) =>
      html`<tr data-type="${event.type}">
        <td class="num">${index + 1}</td>
        <th scope="row">${event.type}</th>
        <td>${event.topic}</td>
        <td class="num" data-field="partition">${event.partition ?? '–'}</td>
        <td class="num" data-field="offset">${event.offset ?? '–'}</td>
        <td><code>${event.id ?? '–'}</code></td>
        <td><code>${event.causationId ?? '–'}</code></td>
        <td><time datetime="${event.time}">${event.time}</time></td>
        <td>${event.source}</td>
      </tr>`,
  );
  return html`<table id="journey-events">
    <caption>
      Every event of the order across the saga topics, causes before effects
    </caption>
    ${tableHead('#', 'Event', 'Topic', 'Partition', 'Offset', 'Event id', 'Causation id', 'Time', 'Produced by')}
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

function journeyPage(
  orderId: string,
  order: OrderView | undefined,
  events: readonly JourneyEvent[],
  emails: readonly SentEmail[] | string,
  trace: string | undefined,
): SafeHtml {
  const path = events.map((event) => event.type).join(' → ');
  const emailPart =
    typeof emails === 'string'
      ? html`<p>The mail UI could not be read: ${emails}</p>`
      : emails.length === 0
        ? html`<p>No email for this order in the mail UI (yet).</p>`
        : html`<ul>
            ${emails.map(
              (email) =>
                html`<li>
                  <a href="${email.url}" data-link="email">${email.subject}</a> to ${email.to}
                  <small>(Message-ID <code>${email.messageId}</code>)</small>
                </li>`,
            )}
          </ul>`;
  return html` <dl class="summary">
      <dt>Order</dt>
      <dd><code>${orderId}</code></dd>
      <dt>Status</dt>
      <dd id="order-status">
        ${order?.status ?? 'unknown to order-service'}${order?.reason ? ` (${order.reason})` : ''}
      </dd>
      ${
        order
          ? html`<dt>Customer</dt>
              <dd>${order.customerId} &lt;${order.customerEmail}&gt;</dd>
              <dt>Total</dt>
              <dd>${order.total} ${order.currency}</dd>`
          : ''
      }
      <dt>Trace</dt>
      <dd>
        ${trace ? html`<a href="${trace}" data-link="trace">open the trace</a>` : 'not sampled, or not seen'}
      </dd>
    </dl>
    <h2>Path</h2>
    <p id="journey-path">${path === '' ? 'No events seen for this order.' : path}</p>
    <h2>State transitions</h2>
    ${transitions(events)}
    <h2>Events</h2>
    ${eventsTable(events)}
    <h2>Email</h2>
    ${emailPart}`;
}

export function registerJourneyPage(app: FastifyInstance, deps: ConsoleDeps): void {
  const { access, store, orderApi, config } = deps;
  app.get<{ Params: { orderId: string } }>('/orders/:orderId', async (request, reply) => {
    const { orderId } = request.params;
    if (!ORDER_ID.test(orderId)) {
      throw Object.assign(new Error(`"${orderId}" is not an order id (a UUID)`), { statusCode: 400 });
    }
    const [order, seen] = [await orderApi.getOrder(orderId).catch(() => undefined), store.get(orderId)];
    const events =
      seen !== undefined ? causalOrder(seen.events).map(fromFeed) : order ? fromTimeline(order) : [];
    const outcomeIds = events
      .filter((e) => OUTCOMES.has(e.type) && e.id !== null)
      .map((e) => emailMessageIdFor(e.id!));
    const emails = await findEmails(config.mail, outcomeIds).catch((error: Error) => error.message);
    const placed = seen?.events.find((event) => event.type === 'order.placed');
    const traceId = sampledTraceId(placed?.traceparent);
    const trace = traceId === undefined ? undefined : traceUrl(config.traces, traceId);
    const context = access.pageContext(request, reply);
    const status = order === undefined && seen === undefined ? 404 : 200;
    return sendHtml(
      reply,
      layout(`Order journey`, context, '', journeyPage(orderId.toLowerCase(), order, events, emails, trace)),
      status,
    );
  });
}
