import { z } from 'zod';

/** Position after the last order of a page, in the list's order (created_at DESC, id DESC). */
export interface OrderCursor {
  readonly createdAt: Date;
  readonly id: string;
}

const CursorSchema = z.tuple([z.iso.datetime(), z.uuid()]);

/** Opaque to clients: base64url of `["<createdAt ISO>", "<id>"]`. */
export const encodeCursor = (cursor: OrderCursor): string =>
  Buffer.from(JSON.stringify([cursor.createdAt.toISOString(), cursor.id])).toString('base64url');

/** Undefined for anything this service did not hand out. */
export function decodeCursor(text: string): OrderCursor | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const result = CursorSchema.safeParse(parsed);
  return result.success ? { createdAt: new Date(result.data[0]), id: result.data[1] } : undefined;
}
