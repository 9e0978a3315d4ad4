import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import type { OrderRequest } from './order-mix';

export type PostResult =
  { readonly ok: true; readonly orderId: string } | { readonly ok: false; readonly status: string };

function resultOf(status: number, text: string): PostResult {
  if (status !== 202) return { ok: false, status: String(status) };
  const orderId = (JSON.parse(text) as { orderId?: unknown }).orderId;
  return typeof orderId === 'string' ? { ok: true, orderId } : { ok: false, status: '202-without-orderId' };
}

/** POST /orders with fetch, one request at a time (tests); the load generator uses OrderClient. */
export async function postOrder(
  baseUrl: string,
  body: OrderRequest,
  timeoutMs = 30_000,
): Promise<PostResult> {
  try {
    const response = await fetch(`${baseUrl}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return resultOf(response.status, await response.text());
  } catch (error) {
    return { ok: false, status: errorCode(error) };
  }
}

export interface OrderClientOptions {
  /** Keep-alive connections to order-service; requests beyond them queue in the pool. */
  readonly connections: number;
  readonly timeoutMs: number;
  /**
   * With a ratio, every POST starts its own trace: a W3C `traceparent` with a fresh random trace
   * id, sampled (flags 01) for this fraction of the orders and not sampled (00) for the rest. The
   * services' parent-based sampler follows the flag, so a load run traces what it asks for
   * whatever the stack's own sampler does with requests that carry no trace (docs/observability.md).
   * Without it, no header: the stack's sampler decides.
   */
  readonly traceRatio?: number;
}

const Headers = { 'content-type': 'application/json' } as const;

/** `00-<trace id>-<span id>-<flags>` for a new trace, sampled or not. */
export function newTraceparent(sampled: boolean): string {
  const ids = randomBytes(24).toString('hex');
  return `00-${ids.slice(0, 32)}-${ids.slice(32)}-${sampled ? '01' : '00'}`;
}

/**
 * POST /orders over a pool of keep-alive connections (undici's Pool, no pipelining): fetch pays for
 * WHATWG streams, Headers, a Request object and an AbortSignal timer per call, about three
 * times the CPU per order of this path, which a 1,000 orders/s run cannot afford on 2 cores.
 * No pipelining, so one slow response never delays the requests queued behind it on a socket.
 */
export class OrderClient {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly traceRatio: number | undefined;

  constructor(baseUrl: string, options: OrderClientOptions) {
    const { traceRatio } = options;
    if (traceRatio !== undefined && !(traceRatio >= 0 && traceRatio <= 1))
      throw new RangeError(`traceRatio must be within [0, 1], got ${traceRatio}`);
    this.traceRatio = traceRatio;
    const url = new URL(baseUrl);
    this.path = `${url.pathname.replace(/\/+$/, '')}/orders`;
    this.pool = new Pool(url.origin, {
      connections: options.connections,
      pipelining: 1,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  async post(body: OrderRequest): Promise<PostResult> {
    try {
      const response = await this.pool.request({
        method: 'POST',
        path: this.path,
        headers: this.headers(),
        body: JSON.stringify(body),
      });
      return resultOf(response.statusCode, await response.body.text());
    } catch (error) {
      return { ok: false, status: errorCode(error) };
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /** Closes at once: requests still waiting for an answer fail (UND_ERR_DESTROYED). */
  async destroy(): Promise<void> {
    await this.pool.destroy();
  }

  private headers(): Record<string, string> {
    if (this.traceRatio === undefined) return Headers;
    return { ...Headers, traceparent: newTraceparent(Math.random() < this.traceRatio) };
  }
}

const TimeoutCodes: ReadonlySet<unknown> = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** 'timeout', the error's code (ECONNREFUSED, UND_ERR_SOCKET, ...), or 'network-error'. */
export function errorCode(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timeout';
  const own = (error as { code?: unknown } | undefined)?.code;
  if (TimeoutCodes.has(own)) return 'timeout';
  if (typeof own === 'string') return own;
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? cause.code : 'network-error';
}
