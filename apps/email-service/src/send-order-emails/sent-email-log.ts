import type { Sql } from '@pipeline/database';
import type { EmailKind } from '../generated/prisma/client';

export interface SentEmailRow {
  readonly eventId: string;
  readonly orderId: string;
  readonly kind: EmailKind;
  readonly recipient: string;
  readonly messageId: string;
}

// ON CONFLICT DO NOTHING: recording a send that is already recorded is not an error.
const RECORD_SENT = `
  INSERT INTO sent_emails (event_id, order_id, kind, recipient, message_id)
  SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::"EmailKind"[], $4::text[], $5::text[])
  ON CONFLICT (event_id) DO NOTHING`;

interface Waiting {
  readonly row: SentEmailRow;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Records accepted sends in autocommitted statements, outside any consumer transaction, as few
 * as waiting for nothing allows: a send that completes while a write is in flight joins the next
 * one (a self-clocked group commit), so the emails of one fetch take one or two commits instead
 * of one each. Each caller resolves once its own row is committed, and rejects if that failed.
 */
export class SentEmailLog {
  private queued: Waiting[] = [];
  private writing = false;

  constructor(private readonly autocommit: Sql) {}

  record(row: SentEmailRow): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ row, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queued.length > 0) {
      const batch = this.queued;
      this.queued = [];
      const rows = batch.map((waiting) => waiting.row);
      try {
        await this.autocommit.execute(RECORD_SENT, [
          rows.map((row) => row.eventId),
          rows.map((row) => row.orderId),
          rows.map((row) => row.kind),
          rows.map((row) => row.recipient),
          rows.map((row) => row.messageId),
        ]);
        for (const waiting of batch) waiting.resolve();
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.writing = false;
  }
}
