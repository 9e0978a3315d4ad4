// What a fuzz run waits for and reads back from the pipeline: groups past every record, orders
// over HTTP on every partition, the pipeline settled, each order's outcome.
import { ServiceNames, deadLetterTopic } from '@pipeline/contracts';
import { eventually } from '../support/processes';
import { httpJson } from '../support/service-harness';
import type { FaultStack } from '../faults/support/fault-stack';
import { emailsByRecipient, outboxRows, rows, totalLag, unfinished } from '../faults/support/pipeline-audit';
import { partitionOf } from './kcat-orders';

export interface HttpOrder {
  readonly orderId: string;
  readonly recipient: string;
  readonly partition: number;
}

/**
 * Partitions some group has not committed to their end (`<group> <topic>/<partition> at
 * <committed> of <end>`), once they all are or after `timeoutMs`: empty when every group moved
 * past everything written, transaction markers included.
 */
export async function notMovedPast(stack: FaultStack, timeoutMs: number): Promise<string[]> {
  const behind = async (): Promise<string[]> => {
    const lagging: string[] = [];
    for (const service of ServiceNames) {
      const group = stack.group(service);
      for (const topic of stack.consumed(service)) {
        const [ends, [committed]] = await Promise.all([
          stack.admin.fetchTopicOffsets(topic),
          stack.admin.fetchOffsets({ groupId: group, topics: [topic] }),
        ]);
        for (const end of ends) {
          const at = committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? '-1';
          const from = Number(at) < 0 ? Number(end.low) : Number(at);
          if (from < Number(end.high))
            lagging.push(`${service}-service ${topic}/${end.partition} at ${at} of ${end.high}`);
        }
      }
    }
    return lagging;
  };
  return eventually(async () => ((await behind()).length === 0 ? [] : undefined), {
    timeoutMs,
    intervalMs: 500,
    what: 'every group past every record',
  }).catch(() => behind());
}

/** Orders over HTTP until every partition of `orders` has `perPartition` of them. */
export async function placeOrdersOnEveryPartition(
  stack: FaultStack,
  runId: string,
  partitions: number,
  perPartition: number,
): Promise<HttpOrder[]> {
  const placed: HttpOrder[] = [];
  const count = (partition: number) => placed.filter((order) => order.partition === partition).length;
  for (let sequence = 0; [...Array(partitions).keys()].some((p) => count(p) < perPartition); sequence++) {
    if (sequence > 20 * partitions * perPartition) throw new Error('orders never covered every partition');
    const recipient = `${runId}-http-${sequence}@kcat.test`;
    const body = {
      customerId: `http-${sequence}`,
      customerEmail: recipient,
      items: [{ sku: 'SKU-BANANA', quantity: 1, unitPrice: '0.40' }],
    };
    const answer = await httpJson<{ orderId: string }>('POST', `${stack.url('order')}/orders`, body);
    if (answer.status !== 202) throw new Error(`POST /orders answered ${answer.status}`);
    const { orderId } = answer.body;
    placed.push({ orderId, recipient, partition: partitionOf(orderId, partitions) });
  }
  return placed;
}

/** Whether everything settled in time: orders terminal and emailed, outboxes empty, no lag, the letters in. */
export async function settled(
  stack: FaultStack,
  orders: readonly { orderId: string; recipient: string }[],
  letters: number,
  timeoutMs: number,
): Promise<boolean> {
  const recipients = new Set(orders.map((order) => order.recipient));
  const lettersWritten = async () => {
    let total = 0;
    for (const service of ServiceNames)
      for (const end of await stack.admin.fetchTopicOffsets(stack.prefix + deadLetterTopic(service)))
        total += Number(end.high) - Number(end.low);
    return total;
  };
  return eventually(
    async () => {
      if ((await unfinished(stack, [...orders.map((order) => order.orderId)])) > 0) return undefined;
      if ((await emailsByRecipient(stack.maildevApi, recipients)).size < recipients.size) return undefined;
      // The letters first: each group also reads its own dead-letter topic, so a letter written
      // after the lag was read would leave lag behind for the audit to find.
      if ((await lettersWritten()) < letters) return undefined;
      return (await outboxRows(stack)) > 0 || (await totalLag(stack)) > 0 ? undefined : true;
    },
    { timeoutMs, intervalMs: 1_000, what: 'the pipeline settled' },
  ).catch(() => false);
}

export interface OrderState {
  readonly status: string;
  readonly terminals: number;
  readonly emails: number;
}

/** Status, terminal events on the timeline and emails received, per order id. */
export async function orderStates(
  stack: FaultStack,
  orders: readonly { orderId: string; recipient: string }[],
): Promise<Map<string, OrderState>> {
  const found = await rows<{ id: string; status: string; terminals: string }>(
    stack,
    'order',
    `SELECT o.id, o.status,
            (SELECT count(*) FROM order_timeline t WHERE t.order_id = o.id
               AND t.type IN ('order.confirmed', 'order.cancelled')) AS terminals
       FROM orders o WHERE o.id = ANY($1::uuid[])`,
    [orders.map((order) => order.orderId)],
  );
  const emails = await emailsByRecipient(stack.maildevApi, new Set(orders.map((order) => order.recipient)));
  const states = new Map<string, OrderState>();
  for (const order of orders) {
    const row = found.find((candidate) => candidate.id === order.orderId);
    states.set(order.orderId, {
      status: row?.status ?? 'UNKNOWN',
      terminals: Number(row?.terminals ?? 0),
      emails: emails.get(order.recipient)?.length ?? 0,
    });
  }
  return states;
}

/** Whether payment-service holds a payment for `orderId` (it processed an order.placed of it). */
export async function hasPayment(stack: FaultStack, orderId: string): Promise<boolean> {
  const [row] = await rows<{ n: string }>(
    stack,
    'payment',
    'SELECT count(*) AS n FROM payments WHERE order_id = $1',
    [orderId],
  );
  return Number(row?.n) > 0;
}
