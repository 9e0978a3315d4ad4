import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Topics } from '@pipeline/contracts';
import { FatalError, type ConsumedEvent, type EventBatch, type PublishedEvent } from '@pipeline/messaging';
import { PipelineMetrics } from '@pipeline/observability';
import { orderFacts, type OrderRow } from '../orders/order-record';
import type { OrderOutcomeEvent, Transition } from '../orders/order-state';
import {
  consumedEntry,
  insertTimeline,
  publishedEntry,
  type AlongsideStatement,
  type TimelineEntry,
} from '../orders/order-timeline';
import { foldSagaEvents, isSagaEventType, type SagaInput } from './fold-saga-events';
import { outcomePayload } from './outcome-payload';
import { outcomeTime } from './outcome-time';

const logger = new Logger('OrderSaga');

// Events of one order arrive on two topics (payments, inventory) whose partitions may be applied
// by concurrent transactions: FOR UPDATE makes the second see the first's outcome. One
// statement, rows locked in id order, so two batches never lock the same orders in different
// orders and deadlock. It reads each order's lines too, which an outcome's payload carries: one
// round trip for the lock and the lines (an order's lines never change after it is placed, so
// which snapshot reads them does not matter).
const LOCK_ORDERS = `
  SELECT o.id::text AS id, o.status::text AS status, o.customer_id, o.customer_email,
         o.total::text AS total, o.currency, o.created_at,
         (SELECT coalesce(json_agg(json_build_object(
                   'sku', i.sku, 'quantity', i.quantity, 'unit_price', i.unit_price::text) ORDER BY i.line),
                 '[]')
            FROM order_items i WHERE i.order_id = o.id) AS items
    FROM orders o WHERE o.id = ANY($1::uuid[]) ORDER BY o.id FOR UPDATE OF o`;

// Runs in the timeline's INSERT (insertTimeline), whose parameters are $1 to $8.
const UPDATE_ORDERS = `
  UPDATE orders AS o SET status = u.status::order_status, reason = u.reason, updated_at = $12
    FROM unnest($9::uuid[], $10::text[], $11::text[]) AS u(id, status, reason)
   WHERE o.id = u.id`;

/** A consumed saga event: every saga payload carries the order id. */
export type SagaEvent = ConsumedEvent<{ readonly orderId: string }>;

interface Input extends SagaInput {
  readonly consumed: SagaEvent;
}

interface Outcome {
  readonly input: Input;
  readonly step: Transition;
  readonly emit: OrderOutcomeEvent;
  readonly order: OrderRow;
  readonly eventId: string;
  /** The outcome's event time: never before its cause's (outcomeTime). */
  readonly at: Date;
}

/**
 * Applies a batch of consumed saga events to their orders in the batch's transaction: lock the
 * orders (and read their lines), fold the events in list order (foldSagaEvents), then for the
 * orders that reach an outcome update them and publish order.confirmed / order.cancelled; every
 * event, consumed or published, goes to the timeline (with the update: one statement). Two
 * statements per call.
 * `topicPrefix` is taken off the consumed topics: the timeline keeps contract names.
 */
export async function applySagaEvents(
  batch: EventBatch,
  events: readonly SagaEvent[],
  topicPrefix = '',
): Promise<void> {
  if (events.length === 0) return;
  const inputs = events.map((event) => toInput(batch, event));
  const locked = await batch.sql.query<OrderRow>(LOCK_ORDERS, [[...new Set(inputs.map((i) => i.orderId))]]);
  const orders = new Map(locked.map((order) => [order.id, order]));
  const orderOf = (input: Input): OrderRow => {
    const order = orders.get(input.orderId);
    // Order events are published only after the order committed: an unknown id is a bad event.
    // Blamed on it: that event alone is dead-lettered and the rest of the batch runs again.
    if (order === undefined) {
      const message = `order ${input.orderId} does not exist: cannot apply ${input.type} ${input.consumed.metadata.id}`;
      throw batch.blame(input.consumed, new FatalError(message, { code: 'ORDER_NOT_FOUND' }));
    }
    return order;
  };
  const steps = foldSagaEvents(inputs, (input) => orderOf(input).status);

  const now = new Date();
  const timeline: TimelineEntry[] = [];
  const outcomes: Outcome[] = [];
  for (const { event: input, step } of steps) {
    const cause = consumedEntry(input.orderId, input.consumed, topicPrefix);
    timeline.push(cause);
    if (step.emit === undefined) continue;
    const { emit } = step;
    const at = outcomeTime(now, cause.at);
    const outcome: Outcome = { input, step, emit, order: orderOf(input), eventId: randomUUID(), at };
    outcomes.push(outcome);
    const { orderId } = input;
    timeline.push(
      publishedEntry({ orderId, type: emit, eventId: outcome.eventId, at, causationId: cause.eventId }),
    );
  }

  const settled = outcomes.length > 0 ? settle(batch, outcomes, now) : undefined;
  await insertTimeline(batch.sql, timeline, settled);
  if (outcomes.length > 0) batch.afterCommit(() => recordOutcomes(outcomes, now));
}

/**
 * The orders that reached an outcome (one per order: a terminal state is never left): publishes
 * their events and gives the UPDATE of their states, which runs with the timeline's INSERT.
 */
function settle(batch: EventBatch, outcomes: readonly Outcome[], now: Date): AlongsideStatement {
  // Payloads first: a contract violation (a bug) fails the batch before anything is written.
  const published = outcomes.map(({ input, order, step, emit, eventId, at }) => {
    const event: PublishedEvent = {
      topic: Topics.orders,
      key: order.id,
      type: emit,
      payload: outcomePayload(orderFacts(order), step, at),
      correlationId: order.id,
      id: eventId,
      time: at,
    };
    return { cause: input.consumed, event };
  });
  for (const { cause, event } of published) batch.publish(cause, event);
  const values = [
    outcomes.map((o) => o.order.id),
    outcomes.map((o) => o.step.next),
    outcomes.map((o) => o.step.reason ?? null),
    now,
  ];
  return { text: UPDATE_ORDERS, values };
}

function recordOutcomes(outcomes: readonly Outcome[], now: Date): void {
  for (const { input, step, emit, order } of outcomes) {
    logger.log(`order ${order.id} ${step.next}${step.reason ? ` (${step.reason})` : ''} after ${input.type}`);
    const outcome = emit === 'order.confirmed' ? 'confirmed' : 'cancelled';
    PipelineMetrics.ordersCompleted.inc({ outcome, reason: step.reason ?? 'none' });
    PipelineMetrics.orderDuration.observe(
      { outcome },
      Math.max(0, (now.getTime() - order.created_at.getTime()) / 1000),
    );
  }
}

function toInput(batch: EventBatch, consumed: SagaEvent): Input {
  const { type } = consumed.metadata;
  // The handler subscribes to the saga types only: anything else is a wiring bug.
  if (!isSagaEventType(type)) {
    throw batch.blame(consumed, new FatalError(`${type} is not a saga event`, { code: 'NOT_A_SAGA_EVENT' }));
  }
  // Lower case, as Postgres prints the uuid it is matched with (the contract allows either).
  return { consumed, orderId: consumed.payload.orderId.toLowerCase(), type };
}
