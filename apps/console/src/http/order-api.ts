import { randomUUID } from 'node:crypto';

export interface PlaceOrderBody {
  readonly customerId: string;
  readonly customerEmail: string;
  readonly items: readonly { readonly sku: string; readonly quantity: number; readonly unitPrice: string }[];
  readonly currency: string;
}

/** One entry of `GET /orders/:id`'s timeline; topic, partition and offset are null until known. */
export interface TimelineEntry {
  readonly type: string;
  readonly at: string;
  readonly topic?: string | null;
  readonly partition?: number | null;
  readonly offset?: string | null;
  readonly eventId?: string | null;
}

export interface OrderView {
  readonly orderId: string;
  readonly customerId: string;
  readonly customerEmail: string;
  readonly status: string;
  readonly reason: string | null;
  readonly total: string;
  readonly currency: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly timeline: readonly TimelineEntry[];
}

const TIMEOUT_MS = 5_000;

/** order-service's public HTTP API, the only way the console reads or places orders. */
export class OrderApi {
  constructor(private readonly baseUrl: string) {}

  async placeOrder(body: PlaceOrderBody): Promise<{ orderId: string }> {
    const response = await fetch(`${this.baseUrl}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await response.text();
    if (response.status !== 202 && response.status !== 200) {
      throw Object.assign(new Error(`order-service answered ${response.status}: ${text.slice(0, 500)}`), {
        statusCode: 502,
      });
    }
    return JSON.parse(text) as { orderId: string };
  }

  /** The order, or undefined when order-service does not know it. */
  async getOrder(orderId: string): Promise<OrderView | undefined> {
    const response = await fetch(`${this.baseUrl}/orders/${encodeURIComponent(orderId)}`, {
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (response.status === 404 || response.status === 400) return undefined;
    if (!response.ok) throw new Error(`order-service answered ${response.status}`);
    return (await response.json()) as OrderView;
  }
}
