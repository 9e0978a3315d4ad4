/**
 * The event time of an outcome (order.confirmed, order.cancelled): order-service's `now`, but
 * never before the time of the event that caused it. That time comes from another service's
 * clock, which may run ahead of ours; an outcome stamped earlier than its cause would list
 * before it on the timeline, which is in event-time order.
 */
export function outcomeTime(now: Date, causeAt: string): Date {
  const cause = Date.parse(causeAt);
  return cause > now.getTime() ? new Date(cause) : now;
}
