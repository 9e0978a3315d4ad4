// After a fault and the drain: every order checked against every service's database and the SMTP
// server. Lost = an order missing an effect it must have; duplicated = an effect applied twice.
import type { ServiceName } from '../../support/service-harness';
import type { FaultStack } from './fault-stack';
import type { PlacedOrder } from './steady-load';
import { readGroupLag } from '@pipeline/load';
import { SERVICES } from './fault-stack';

export interface Audit {
  readonly placed: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly outboxRows: number;
  readonly lag: number;
  /** Up to 20 descriptions of what was lost or duplicated, for the failure message. */
  readonly problems: readonly string[];
}

interface MaildevEmail {
  readonly to?: readonly { readonly address?: string }[];
  readonly headers?: Readonly<Record<string, string>>;
}

/** Emails per recipient (of `recipients`): the Message-ID of each one received. */
export async function emailsByRecipient(
  apiUrl: string,
  recipients: ReadonlySet<string>,
): Promise<Map<string, string[]>> {
  const response = await fetch(apiUrl, { signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`GET ${apiUrl} answered ${response.status}`);
  const byRecipient = new Map<string, string[]>();
  for (const email of (await response.json()) as MaildevEmail[])
    for (const { address } of email.to ?? [])
      if (address !== undefined && recipients.has(address))
        byRecipient.set(address, [...(byRecipient.get(address) ?? []), email.headers?.['message-id'] ?? '']);
  return byRecipient;
}

/** The rows `sql` returns from `service`'s database. */
export const rows = async <T>(
  stack: FaultStack,
  service: ServiceName,
  sql: string,
  params: readonly unknown[] = [],
): Promise<T[]> =>
  stack.database(service).withClient(async (client) => (await client.query(sql, [...params])).rows as T[]);

/** Rows waiting in the outboxes of `services` (every service by default). */
export async function outboxRows(
  stack: FaultStack,
  services: readonly ServiceName[] = SERVICES,
): Promise<number> {
  const counts = await Promise.all(
    services.map(async (name) =>
      Number((await rows<{ n: string }>(stack, name, 'SELECT count(*) AS n FROM outbox'))[0]?.n),
    ),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

/** Consumer lag summed over the groups of `services` (every service by default). */
export async function totalLag(
  stack: FaultStack,
  services: readonly ServiceName[] = SERVICES,
): Promise<number> {
  const lags = await Promise.all(
    services.map((name) => readGroupLag(stack.admin, stack.group(name), stack.consumed(name))),
  );
  return lags.reduce((sum, lag) => sum + lag, 0);
}

/** Orders (of `orderIds`) still PENDING or unknown to order-service. */
export async function unfinished(stack: FaultStack, orderIds: readonly string[]): Promise<number> {
  if (orderIds.length === 0) return 0;
  const [done] = await rows<{ n: string }>(
    stack,
    'order',
    `SELECT count(*) AS n FROM orders WHERE status <> 'PENDING' AND id = ANY($1::uuid[])`,
    [orderIds],
  );
  return orderIds.length - Number(done?.n);
}

export async function audit(stack: FaultStack, placed: readonly PlacedOrder[]): Promise<Audit> {
  const problems: string[] = [];
  let lost = 0;
  let duplicated = 0;
  const note = (kind: 'lost' | 'duplicated', what: string) => {
    if (kind === 'lost') lost++;
    else duplicated++;
    if (problems.length < 20) problems.push(`${kind}: ${what}`);
  };

  const orders = await rows<{ id: string; status: string; customer_email: string; terminals: string }>(
    stack,
    'order',
    `SELECT o.id, o.status, o.customer_email,
            (SELECT count(*) FROM order_timeline t WHERE t.order_id = o.id
               AND t.type IN ('order.confirmed', 'order.cancelled')) AS terminals
       FROM orders o`,
  );
  const payments = new Map(
    (
      await rows<{ order_id: string; status: string }>(
        stack,
        'payment',
        'SELECT order_id, status FROM payments',
      )
    ).map((row) => [row.order_id, row.status]),
  );
  const reservations = new Map(
    (
      await rows<{ order_id: string; status: string }>(
        stack,
        'inventory',
        'SELECT order_id, status FROM reservations',
      )
    ).map((row) => [row.order_id, row.status]),
  );
  const emails = await emailsByRecipient(
    stack.maildevApi,
    new Set(orders.map((order) => order.customer_email)),
  );
  const byId = new Map(orders.map((order) => [order.id, order]));

  for (const { orderId } of placed)
    if (!byId.has(orderId)) note('lost', `order ${orderId} accepted but unknown`);
  for (const order of orders) {
    const terminal = order.status !== 'PENDING';
    if (!terminal) note('lost', `order ${order.id} never reached a terminal state`);
    if (Number(order.terminals) > 1)
      note('duplicated', `order ${order.id} reached ${order.terminals} terminal states`);
    const payment = payments.get(order.id);
    if (payment === undefined) note('lost', `order ${order.id} has no payment`);
    else if (order.status === 'CONFIRMED' && payment !== 'AUTHORIZED')
      note('lost', `confirmed order ${order.id} has payment ${payment}`);
    else if (order.status === 'CANCELLED' && payment === 'AUTHORIZED')
      note('lost', `cancelled order ${order.id} was never refunded`);
    const reservation = reservations.get(order.id);
    if (order.status === 'CONFIRMED' && reservation !== 'RESERVED')
      note('lost', `confirmed order ${order.id} has reservation ${reservation ?? 'none'}`);
    if (order.status === 'CANCELLED' && reservation === 'RESERVED')
      note('duplicated', `cancelled order ${order.id} holds a reservation`);
    const sent = emails.get(order.customer_email) ?? [];
    if (terminal && sent.length === 0) note('lost', `order ${order.id} (${order.status}) sent no email`);
    if (sent.length > 1)
      note('duplicated', `order ${order.id} sent ${sent.length} emails (${new Set(sent).size} Message-IDs)`);
  }

  await checkStock(
    stack,
    (what) => note('duplicated', what),
    (what) => note('lost', what),
  );
  await checkAnalytics(stack, orders, (kind, what) => note(kind, what));
  const outbox = await outboxRows(stack);
  const lag = await totalLag(stack);
  return { placed: placed.length, lost, duplicated, outboxRows: outbox, lag, problems };
}

/**
 * Reserved units per SKU must equal the units of the orders inventory holds a reservation for:
 * more is a reservation applied twice, fewer one lost. (Whether each confirmed order holds one, and
 * each cancelled one does not, is checked per order; an order left PENDING by a lost event may hold
 * one, which is that loss, not a duplicate.)
 */
async function checkStock(stack: FaultStack, over: (what: string) => void, under: (what: string) => void) {
  const reserved = (
    await rows<{ order_id: string }>(
      stack,
      'inventory',
      "SELECT order_id FROM reservations WHERE status = 'RESERVED'",
    )
  ).map((row) => row.order_id);
  const expected = new Map(
    (
      await rows<{ sku: string; units: string }>(
        stack,
        'order',
        'SELECT sku, sum(quantity) AS units FROM order_items WHERE order_id = ANY($1::uuid[]) GROUP BY sku',
        [reserved],
      )
    ).map((row) => [row.sku, Number(row.units)]),
  );
  for (const { sku, reserved: units } of await rows<{ sku: string; reserved: number }>(
    stack,
    'inventory',
    'SELECT sku, reserved FROM stock',
  )) {
    const want = expected.get(sku) ?? 0;
    if (units > want) over(`${sku}: ${units} units reserved for ${want} in RESERVED reservations`);
    if (units < want) under(`${sku}: ${units} units reserved for ${want} in RESERVED reservations`);
  }
}

/** Analytics' counts (windows plus late events) must match the orders, one for one. */
async function checkAnalytics(
  stack: FaultStack,
  orders: readonly { status: string }[],
  note: (kind: 'lost' | 'duplicated', what: string) => void,
) {
  const [windows] = await rows<{ placed: string; confirmed: string; cancelled: string }>(
    stack,
    'analytics',
    `SELECT coalesce(sum(placed), 0) AS placed, coalesce(sum(confirmed), 0) AS confirmed,
            coalesce(sum(cancelled), 0) AS cancelled FROM customer_windows`,
  );
  const late = new Map(
    (
      await rows<{ type: string; n: string }>(
        stack,
        'analytics',
        'SELECT type, count(*) AS n FROM late_events GROUP BY type',
      )
    ).map((row) => [row.type, Number(row.n)]),
  );
  const counted = {
    placed: Number(windows?.placed) + (late.get('order.placed') ?? 0),
    confirmed: Number(windows?.confirmed) + (late.get('order.confirmed') ?? 0),
    cancelled: Number(windows?.cancelled) + (late.get('order.cancelled') ?? 0),
  };
  const actual = {
    placed: orders.length,
    confirmed: orders.filter((order) => order.status === 'CONFIRMED').length,
    cancelled: orders.filter((order) => order.status === 'CANCELLED').length,
  };
  for (const key of ['placed', 'confirmed', 'cancelled'] as const) {
    const difference = counted[key] - actual[key];
    for (let i = 0; i < Math.abs(difference); i++)
      note(
        difference > 0 ? 'duplicated' : 'lost',
        `analytics counted ${counted[key]} ${key} for ${actual[key]} orders`,
      );
  }
}
