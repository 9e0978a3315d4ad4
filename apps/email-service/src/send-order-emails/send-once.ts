import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EventContext } from '@pipeline/messaging';
import { DATABASE } from '@pipeline/service-kit';
import type { EmailKind, Prisma, PrismaClient } from '../generated/prisma/client';
import { MailSender, type OutgoingEmail } from '../mail/mail-sender';

export interface EmailToSend {
  readonly kind: EmailKind;
  readonly orderId: string;
  readonly email: OutgoingEmail;
}

/**
 * Sends the email of one consumed event at most once, as far as a database can promise that
 * about an SMTP server that is outside it.
 *
 * 1. `sent_emails` has a row for this event id: it was sent before, nothing to do.
 * 2. Send. A failure throws (retriable or fatal) and nothing is recorded.
 * 3. Record the send at once, in its own autocommitted statement, NOT in `ctx.tx`. The consumer
 *    runs a whole chunk of records in one transaction and re-runs the chunk when any record of
 *    it fails (or the commit does); a row written in `ctx.tx` would be rolled back with it and
 *    every email of the chunk sent again. Committed on its own, the row survives that, and the
 *    redelivery finds it in step 1. A row without its inbox row is harmless for the same reason.
 *
 * The honest limit: a crash (or a database failure) after the SMTP server accepted the email and
 * before step 3 committed means the event is redelivered and the email sent a second time. At
 * most one duplicate per such crash, and it carries the same Message-ID, so mail clients and
 * servers that deduplicate on it (and anyone reading the logs) can recognise it.
 */
@Injectable()
export class SendOnce {
  private readonly logger = new Logger(SendOnce.name);

  constructor(
    @Inject(DATABASE) private readonly database: PrismaClient,
    private readonly mail: MailSender,
  ) {}

  async send(
    ctx: EventContext<Prisma.TransactionClient>,
    { kind, orderId, email }: EmailToSend,
  ): Promise<void> {
    const eventId = ctx.metadata.id;
    const sent = await ctx.tx.sentEmail.findUnique({ where: { eventId }, select: { sentAt: true } });
    if (sent) {
      this.logger.log(`${kind} email for order ${orderId} (event ${eventId}) already sent: skipped`);
      return;
    }
    await this.mail.send(email);
    await this.database.sentEmail.createMany({
      data: [{ eventId, orderId, kind, recipient: email.to, messageId: email.messageId }],
      skipDuplicates: true,
    });
    // Never the body: it is the customer's data and can be large; the Message-ID finds it.
    this.logger.log(`${kind} email for order ${orderId} sent, Message-ID ${email.messageId}`);
  }
}
