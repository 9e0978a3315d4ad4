import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ConsoleDeps } from '../console-deps';
import { registerAction } from '../http/actions';
import { EventStreams } from '../http/event-streams';
import type { InstanceMetrics } from '../flow/service-metrics';
import type { OrderEntry } from '../flow/order-store';
import { flowPictureSections, registerFlowPicture } from './flow-picture.page';
import { html, join, type SafeHtml } from './html';
import { actionButton, csrfField, layout, type PageContext, sendHtml, tableHead } from './layout';

const LIVE_ROWS = 50;

/** The demo orders the form places, one per outcome the saga can reach. */
export const DEMO_OUTCOMES = {
  confirmed: { label: 'Confirmed', customerId: 'demo-customer', sku: 'SKU-APPLE' },
  declined: { label: 'Declined (payment)', customerId: 'blocked-demo-customer', sku: 'SKU-APPLE' },
  'out-of-stock': { label: 'Out of stock', customerId: 'demo-customer', sku: 'SKU-RARE' },
} as const;

const DemoOrderForm = z.object({
  outcome: z.enum(Object.keys(DEMO_OUTCOMES) as [keyof typeof DEMO_OUTCOMES]),
  customerEmail: z.email().default('demo@example.test'),
});

export function orderRow(order: OrderEntry): SafeHtml {
  return html`<tr id="order-${order.orderId}" data-status="${order.status}">
    <td><time datetime="${order.firstSeen}">${order.firstSeen.slice(11, 23)}</time></td>
    <td><a href="/orders/${order.orderId}">${order.orderId}</a></td>
    <td>${order.customerId ?? ''}</td>
    <td class="num">${order.total === undefined ? '' : `${order.total} ${order.currency ?? ''}`}</td>
    <td>
      <span class="status status-${order.status.toLowerCase()}">${order.status}</span
      >${order.reason ? html` <small>${order.reason}</small>` : ''}
    </td>
  </tr>`;
}

export function metricsTable(instances: readonly InstanceMetrics[], everyMs: number): SafeHtml {
  const rows = instances.map(
    (m) =>
      html`<tr data-service="${m.service}">
        <th scope="row">${m.service}</th>
        <td>${m.url}</td>
        <td>
          ${m.up ? 'up' : html`<span class="status status-cancelled">down</span> <small>${m.error}</small>`}
        </td>
        <td class="num">${m.eventsPerSecond === undefined ? '–' : m.eventsPerSecond.toFixed(1)}</td>
        <td>
          ${m.lag.length === 0 ? '–' : join(m.lag.map((l) => html`<span class="lag">${l.topic}/${l.partition}: ${l.lag}</span> `))}
        </td>
        <td class="num">${m.outboxBacklog ?? '–'}</td>
        <td class="num">${m.deadLetterDepth ?? '–'}</td>
      </tr>`,
  );
  return html`<table>
    <caption>
      Read from each instance's /metrics every ${everyMs / 1000} s, by the console's sampler
    </caption>
    ${tableHead('Service', 'Instance', 'State', 'Events/s', 'Consumer lag per partition', 'Outbox backlog', 'Dead letters')}
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

function flowPage(
  deps: ConsoleDeps,
  context: PageContext,
  orders: readonly OrderEntry[],
  placed?: string,
): SafeHtml {
  const every = deps.config.sampleIntervalMs;
  const options = Object.entries(DEMO_OUTCOMES).map(
    ([value, { label }]) => html`<option value="${value}">${label}</option>`,
  );
  return html`${flowPictureSections(deps)}
    <section aria-labelledby="demo-heading">
      <h2 id="demo-heading">Place a demo order</h2>
      <form method="post" action="/demo-orders" class="row" data-async data-result="demo-result">
        ${csrfField(context)}
        <label
          >Outcome
          <select name="outcome">
            ${options}
          </select></label
        >
        <label
          >Customer email <input type="email" name="customerEmail" value="demo@example.test" required
        /></label>
        ${actionButton(context, 'Place order')}
      </form>
      <p role="status" id="demo-result">
        ${placed ? html`Placed order <a href="/orders/${placed}">${placed}</a>.` : ''}
      </p>
    </section>
    <section aria-labelledby="live-heading">
      <h2 id="live-heading">Orders, live</h2>
      <p>
        From the console's own consumer group on <code>orders</code>, <code>payments</code> and
        <code>inventory</code>; rows change as events arrive.
      </p>
      <table id="live-orders" data-stream="/flow/stream" data-max-rows="${LIVE_ROWS}">
        ${tableHead('Placed', 'Order', 'Customer', 'Total', 'Status')}
        <tbody>
          ${orders.map(orderRow)}
        </tbody>
      </table>
    </section>
    <section aria-labelledby="services-heading">
      <h2 id="services-heading">Services</h2>
      <div id="service-metrics" data-refresh-url="/flow/metrics" data-refresh-ms="${every}">
        ${metricsTable(deps.sampler.latestInstances(), every)}
      </div>
    </section>`;
}

export function registerFlowPage(app: FastifyInstance, deps: ConsoleDeps): void {
  const { access, store, orderApi, sampler, config } = deps;
  registerFlowPicture(app, deps);

  app.get<{ Querystring: { placed?: string } }>('/', async (request, reply) => {
    const context = access.pageContext(request, reply);
    const placed =
      typeof request.query.placed === 'string' && /^[0-9a-f-]{36}$/i.test(request.query.placed)
        ? request.query.placed
        : undefined;
    const page = flowPage(deps, context, store.recent(LIVE_ROWS), placed);
    return sendHtml(reply, layout('Live flow', context, '/', page));
  });

  // The sampler's last scrape: an open page costs the services no scrape of its own.
  app.get('/flow/metrics', (_request, reply) =>
    sendHtml(reply, metricsTable(sampler.latestInstances(), config.sampleIntervalMs)),
  );

  // Server-sent events: each message is the rows that changed, rendered as on the page.
  const streams = new EventStreams('live', {
    max: config.maxStreams,
    variable: 'CONSOLE_MAX_STREAMS',
    maxBufferedBytes: config.streamMaxBufferedBytes,
  });
  app.get('/flow/stream', (request, reply) =>
    streams.accept(request, reply, (stream) =>
      store.subscribe((changed) => {
        const rows = changed
          .slice(-LIVE_ROWS)
          .map((order) => ({ id: order.orderId, status: order.status, html: orderRow(order).value }));
        stream.send('orders', JSON.stringify(rows));
      }),
    ),
  );

  registerAction(app, access, 'demo-order', '/demo-orders', async (request) => {
    const parsed = DemoOrderForm.safeParse(request.body ?? {});
    if (!parsed.success) {
      const fields = parsed.error.issues
        .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
        .join('; ');
      throw Object.assign(new Error(`invalid demo order: ${fields}`), { statusCode: 400 });
    }
    const { outcome, customerEmail } = parsed.data;
    const demo = DEMO_OUTCOMES[outcome];
    const { orderId } = await orderApi.placeOrder({
      customerId: demo.customerId,
      customerEmail,
      items: [{ sku: demo.sku, quantity: 1, unitPrice: '4.20' }],
      currency: 'EUR',
    });
    return { changed: { outcome, orderId }, redirect: `/?placed=${orderId}`, json: { orderId, outcome } };
  });
}
