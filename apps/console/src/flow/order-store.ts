/** One saga event as the console read it from the log. */
export interface FeedEvent {
  /** The contract topic name (without a test prefix). */
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly id: string;
  readonly type: string;
  /** The producing service (`ce_source`). */
  readonly source: string;
  readonly time: string;
  /** The order id on the saga topics. */
  readonly correlationId: string;
  readonly causationId: string | undefined;
  readonly traceparent: string | undefined;
  readonly payload: unknown;
}

/** What the store keeps of an event: its metadata, never its payload (read once, into the order). */
export type KeptEvent = Omit<FeedEvent, 'payload'>;

export type OrderStatus = 'PENDING' | 'CONFIRMED' | 'CANCELLED';

export interface OrderEntry {
  readonly orderId: string;
  status: OrderStatus;
  reason: string | undefined;
  customerId: string | undefined;
  total: string | undefined;
  currency: string | undefined;
  /** The first event's time: the order.placed event's, once seen. */
  firstSeen: string;
  /** The order.placed event's time, once seen. */
  placedAt: string | undefined;
  updated: string;
  /** At most `maxEventsPerOrder`, the first ones (a saga has 3 to 5). */
  readonly events: KeptEvent[];
  /** Events beyond that cap: applied to the status, not kept. */
  dropped: number;
}

type Listener = (changed: readonly OrderEntry[]) => void;
/** Called once per new event (not for a redelivered one), after the store applied it. */
type Tap = (event: FeedEvent, entry: OrderEntry) => void;

/**
 * Bounds one order's memory whatever arrives under its id (a client reusing an order id, a
 * replayed dead letter): a journey of a normal saga has at most 5 events. The default of
 * CONSOLE_MAX_EVENTS_PER_ORDER.
 */
export const MAX_EVENTS_PER_ORDER = 32;

/**
 * Every string kept is cut to this many characters: headers and payload fields come from whoever
 * wrote to the topic. An event whose order id is longer is not an order of this pipeline: skipped.
 */
export const MAX_FIELD_CHARS = 200;

export interface OrderStoreLimits {
  /** Orders kept; the oldest are dropped beyond it (CONSOLE_MAX_ORDERS). */
  readonly maxOrders: number;
  readonly maxEventsPerOrder?: number;
}

const clip = <T extends string | undefined>(value: T): T =>
  (value !== undefined && value.length > MAX_FIELD_CHARS
    ? `${value.slice(0, MAX_FIELD_CHARS)}…`
    : value) as T;

const kept = (event: FeedEvent): KeptEvent => ({
  topic: event.topic,
  partition: event.partition,
  offset: event.offset,
  id: clip(event.id),
  type: clip(event.type),
  source: clip(event.source),
  time: clip(event.time),
  correlationId: event.correlationId,
  causationId: clip(event.causationId),
  traceparent: clip(event.traceparent),
});

const samePosition = (a: KeptEvent, b: KeptEvent) =>
  a.offset === b.offset && a.partition === b.partition && a.topic === b.topic;

const field = (payload: unknown, name: string): string | undefined => {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const value = (payload as Record<string, unknown>)[name];
  return typeof value === 'string' ? clip(value) : undefined;
};

/**
 * The orders the live flow shows, in memory and bounded: at most `maxOrders` (the oldest are
 * dropped), each with at most `maxEventsPerOrder` events of clipped metadata. Changes reach
 * listeners coalesced, at most every `flushMs`, so a load test does not push one message per
 * event to every browser; a dropped order is dropped from the next flush too.
 */
export class OrderStore {
  private readonly byId = new Map<string, OrderEntry>();
  private readonly listeners = new Set<Listener>();
  private tapped: Tap | undefined;
  private pending = new Map<string, OrderEntry>();
  private timer: NodeJS.Timeout | undefined;
  private readonly maxOrders: number;
  private readonly maxEventsPerOrder: number;

  constructor(
    limits: OrderStoreLimits,
    private readonly flushMs = 250,
  ) {
    this.maxOrders = limits.maxOrders;
    this.maxEventsPerOrder = limits.maxEventsPerOrder ?? MAX_EVENTS_PER_ORDER;
  }

  add(event: FeedEvent): void {
    if (event.correlationId.length > MAX_FIELD_CHARS) return;
    const orderId = event.correlationId.toLowerCase();
    let entry = this.byId.get(orderId);
    // A redelivered record (the console's own group rebalanced) is the same event: once. The
    // order's own few events are the only ones to compare with: no set of every position.
    if (entry?.events.some((known) => samePosition(known, event))) return;
    if (entry === undefined) {
      entry = {
        orderId,
        status: 'PENDING',
        reason: undefined,
        customerId: undefined,
        total: undefined,
        currency: undefined,
        firstSeen: clip(event.time),
        placedAt: undefined,
        updated: clip(event.time),
        events: [],
        dropped: 0,
      };
      this.byId.set(orderId, entry);
      this.evict();
    }
    if (entry.events.length < this.maxEventsPerOrder) entry.events.push(kept(event));
    else entry.dropped += 1;
    applyEvent(entry, event);
    this.tapped?.(event, entry);
    this.pending.set(orderId, entry);
    this.timer ??= setTimeout(() => this.flush(), this.flushMs);
  }

  get(orderId: string): OrderEntry | undefined {
    return this.byId.get(orderId.toLowerCase());
  }

  /** The most recent orders first. */
  recent(limit: number): OrderEntry[] {
    return [...this.byId.values()].sort((a, b) => b.firstSeen.localeCompare(a.firstSeen)).slice(0, limit);
  }

  get size(): number {
    return this.byId.size;
  }

  /** One observer of every new event (the flow sampler's counter). */
  tap(observer: Tap): void {
    this.tapped = observer;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    clearTimeout(this.timer);
    this.listeners.clear();
  }

  private flush(): void {
    this.timer = undefined;
    const changed = [...this.pending.values()];
    this.pending = new Map();
    for (const listener of this.listeners) listener(changed);
  }

  private evict(): void {
    while (this.byId.size > this.maxOrders) {
      const [oldest] = this.byId.values();
      if (oldest === undefined) return;
      this.byId.delete(oldest.orderId);
      this.pending.delete(oldest.orderId);
    }
  }
}

function applyEvent(entry: OrderEntry, event: FeedEvent): void {
  const time = clip(event.time);
  if (time > entry.updated) entry.updated = time;
  if (event.type === 'order.placed') {
    entry.firstSeen = time;
    entry.placedAt = time;
    entry.customerId = field(event.payload, 'customerId');
    entry.total = field(event.payload, 'total');
    entry.currency = field(event.payload, 'currency');
  } else if (event.type === 'order.confirmed') {
    entry.status = 'CONFIRMED';
  } else if (event.type === 'order.cancelled') {
    entry.status = 'CANCELLED';
    entry.reason = field(event.payload, 'reason');
  }
}

/**
 * The events of one order in causal order: an event comes after the event that caused it
 * (`causation_id`); events with no known cause, and siblings, go by event time, then position.
 */
export function causalOrder<E extends KeptEvent>(events: readonly E[]): E[] {
  const byTime = [...events].sort(
    (a, b) =>
      a.time.localeCompare(b.time) ||
      a.topic.localeCompare(b.topic) ||
      a.partition - b.partition ||
      Number(BigInt(a.offset) - BigInt(b.offset)),
  );
  const ids = new Set(byTime.map((event) => event.id));
  const children = new Map<string, E[]>();
  const roots: E[] = [];
  for (const event of byTime) {
    if (event.causationId !== undefined && ids.has(event.causationId) && event.causationId !== event.id) {
      const list = children.get(event.causationId) ?? [];
      list.push(event);
      children.set(event.causationId, list);
    } else roots.push(event);
  }
  // Depth-first would put a whole branch before a sibling's; a merge by time keeps the reading
  // chronological while never placing an effect before its cause.
  const ordered: E[] = [];
  const ready = [...roots];
  const placed = new Set<string>();
  while (ready.length > 0) {
    ready.sort((a, b) => byTime.indexOf(a) - byTime.indexOf(b));
    const next = ready.shift()!;
    if (placed.has(next.id + next.offset + next.topic)) continue;
    placed.add(next.id + next.offset + next.topic);
    ordered.push(next);
    ready.push(...(children.get(next.id) ?? []));
  }
  return ordered;
}
