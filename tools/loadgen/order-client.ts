import type { OrderRequest } from './order-mix';

export type PostResult =
  { readonly ok: true; readonly orderId: string } | { readonly ok: false; readonly status: string };

/** POST /orders; `status` is the HTTP status, or the error's code when there was no response. */
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
    const text = await response.text();
    if (response.status !== 202) return { ok: false, status: String(response.status) };
    const orderId = (JSON.parse(text) as { orderId?: unknown }).orderId;
    return typeof orderId === 'string' ? { ok: true, orderId } : { ok: false, status: '202-without-orderId' };
  } catch (error) {
    return { ok: false, status: errorCode(error) };
  }
}

function errorCode(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timeout';
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? cause.code : 'network-error';
}
