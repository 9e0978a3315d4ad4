import { Inject, Injectable, Logger } from '@nestjs/common';
import { type EventContext } from '@pipeline/messaging';
import { sqlOver } from '@pipeline/database';
import { DATABASE_POOL } from '@pipeline/service-kit';
import type pg from 'pg';
import type { EmailKind } from '../generated/prisma/client';
import { MailSender, type OutgoingEmail } from '../mail/mail-sender';
import { SentEmailLog, type SentEmailRow } from './sent-email-log';

export interface EmailToSend {
  readonly kind: EmailKind;
  readonly orderId: string;
  readonly email: OutgoingEmail;
}

const FIND_SENT = 'SELECT 1 FROM sent_emails WHERE event_id = $1::uuid';

/**
 * Sends the email of one consumed event at most once, as far as a database can promise that
 * about an SMTP server that is outside it.
 *
 * 1. `sent_emails` has a row for this event id: it was sent before, nothing to do.
 * 2. This process already had the email accepted by the SMTP server, but could not record it
 *    (the database failed in step 4): do not send it again, go to step 4.
 * 3. Send. A failure throws (retriable or fatal) and nothing is recorded.
 * 4. Record the send at once, in an autocommitted statement on the service's pool (shared with
 *    the sends that complete while the previous one is written: SentEmailLog), NOT in `ctx.sql`. The consumer runs a whole batch of records in one transaction and re-runs it
 *    (bisected) when any record of it fails (or the commit does); a row written in `ctx.sql` would
 *    be rolled back with it and every email of the batch sent again. Committed on its own, the
 *    row survives that, and the redelivery finds it in step 1. A row without its inbox row is harmless for the same reason.
 *    If this statement fails (Postgres restarting, a connection cut), the error fails the batch
 *    as any database outage does; the redelivery of the same event to this process meets step 2.
 *
 * The honest limit: the memory of step 2 is this process's. A crash (kill -9, OOM) after the SMTP
 * server accepted the email and before step 4 committed, or a rebalance that hands the partition
 * to another instance in that window, means the email is sent a second time. At most one
 * duplicate per such event, and it carries the same Message-ID, so mail clients and servers that
 * deduplicate on it (and anyone reading the logs) can recognise it.
 */
@Injectable()
export class SendOnce {
  private readonly logger = new Logger(SendOnce.name);
  /** Accepted by the SMTP server, not yet recorded: event id → the row to record. */
  private readonly acceptedNotRecorded = new Map<string, SentEmailRow>();

  /** Autocommitted on a pooled connection of its own, outside the consumer transaction. */
  private readonly sent: SentEmailLog;

  // One lookup per event: a lookup for the whole batch would save statements, but a
  // single-event handler (one SMTP send each) never sees the batch, not without API changes.
  constructor(
    @Inject(DATABASE_POOL) pool: pg.Pool,
    private readonly mail: MailSender,
  ) {
    this.sent = new SentEmailLog(sqlOver(pool));
  }

  async send(ctx: EventContext, { kind, orderId, email }: EmailToSend): Promise<void> {
    const eventId = ctx.metadata.id;
    const sent = await ctx.sql.query(FIND_SENT, [eventId]);
    if (sent.length > 0) {
      this.acceptedNotRecorded.delete(eventId);
      this.logger.log(`${kind} email for order ${orderId} (event ${eventId}) already sent: skipped`);
      return;
    }
    let row = this.acceptedNotRecorded.get(eventId);
    if (row) {
      this.logger.warn(
        `${kind} email for order ${orderId} was accepted by the SMTP server before a database ` +
          `failure (Message-ID ${row.messageId}): recording it, not sending it again`,
      );
    } else {
      await this.mail.send(email);
      row = { eventId, orderId, kind, recipient: email.to, messageId: email.messageId };
      this.acceptedNotRecorded.set(eventId, row);
    }
    // Nothing between the SMTP server's reply and this statement: that gap is the window in which
    // a crash sends the email twice (the log line waits until the row is written).
    await this.sent.record(row);
    this.acceptedNotRecorded.delete(eventId);
    // Never the body: it is the customer's data and can be large; the Message-ID finds it.
    this.logger.log(`${kind} email for order ${orderId} sent, Message-ID ${email.messageId}`);
  }
}
