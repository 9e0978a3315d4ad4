import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { createTransport, type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import { messageOf } from '@pipeline/observability';
import { SERVICE_CONFIG } from '@pipeline/service-kit';
import type { EmailConfig } from '../config';
import { smtpFailure } from './smtp-failure';
import { smtpPoolOptions } from './smtp.options';

/** An email ready to go: the body is built, the Message-ID decided by the caller. */
export interface OutgoingEmail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** `<id@domain>`; deterministic so a duplicate is recognisable downstream. */
  readonly messageId: string;
}

const tracer = trace.getTracer('email-service');

/**
 * The process's one pooled SMTP transport: connections are reused across emails and closed when
 * the application shuts down (after the consumer has finished its batch).
 */
@Injectable()
export class MailSender implements OnApplicationShutdown {
  private readonly transport: Transporter<SMTPPool.SentMessageInfo, SMTPPool.Options>;
  private readonly from: string;

  constructor(@Inject(SERVICE_CONFIG) config: EmailConfig) {
    this.transport = createTransport(smtpPoolOptions(config.SMTP_URL));
    this.from = config.MAIL_FROM;
  }

  /** Resolves once the SMTP server accepted the email; throws a Retriable/FatalError otherwise. */
  async send(email: OutgoingEmail): Promise<void> {
    // An event whose trace is not sampled has no `process` span: a span here would be the root
    // of a trace of its own, one per email whatever the sampling (docs/observability.md).
    if (trace.getActiveSpan() === undefined) return this.deliver(email);
    // A CLIENT span per email, child of the event's `process` span. No recipient or body in it.
    await tracer.startActiveSpan(
      'smtp send',
      {
        kind: SpanKind.CLIENT,
        attributes: { 'network.protocol.name': 'smtp', 'email.message_id': email.messageId },
      },
      async (span) => {
        try {
          await this.deliver(email);
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(error) });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }

  private async deliver(email: OutgoingEmail): Promise<void> {
    try {
      await this.transport.sendMail({
        from: this.from,
        to: email.to,
        subject: email.subject,
        text: email.text,
        html: email.html,
        messageId: email.messageId,
      });
    } catch (error) {
      throw smtpFailure(error);
    }
  }

  onApplicationShutdown(): void {
    this.transport.close();
  }
}
