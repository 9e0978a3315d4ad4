import type { OrderStatus, Prisma } from '../generated/prisma/client';

export type EarlierRequest =
  | { readonly kind: 'replayed'; readonly orderId: string; readonly status: OrderStatus }
  | { readonly kind: 'conflict'; readonly orderId: string };

/**
 * Claims `key` for the order about to be created, first thing in its transaction. Concurrent
 * requests with the same key serialise on the primary key: the INSERT of the second waits for
 * the first transaction, then does nothing, and the next statement sees the committed row.
 * Returns undefined when the key is ours (go on and create the order), else what it was used for.
 */
export async function claimIdempotencyKey(
  tx: Prisma.TransactionClient,
  key: string,
  hash: string,
  orderId: string,
): Promise<EarlierRequest | undefined> {
  const claimed = await tx.$executeRaw`
    INSERT INTO idempotency_keys (key, request_hash, order_id) VALUES (${key}, ${hash}, ${orderId}::uuid)
    ON CONFLICT (key) DO NOTHING`;
  if (claimed === 1) return undefined;
  const earlier = await tx.idempotencyKey.findUniqueOrThrow({ where: { key } });
  if (earlier.requestHash !== hash) return { kind: 'conflict', orderId: earlier.orderId };
  const order = await tx.order.findUniqueOrThrow({
    where: { id: earlier.orderId },
    select: { status: true },
  });
  return { kind: 'replayed', orderId: earlier.orderId, status: order.status };
}
