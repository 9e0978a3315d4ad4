import type { ConsoleConfig } from '../config';

export interface SentEmail {
  readonly subject: string;
  readonly to: string;
  readonly messageId: string;
  /** The mail UI's page of this email, as the browser reaches it. */
  readonly url: string;
}

interface MaildevEmail {
  readonly id: string;
  readonly subject: string;
  readonly to: readonly { readonly address: string }[];
  readonly headers: Readonly<Record<string, string>>;
}

/** The trace id of a W3C `traceparent`, when it was sampled. */
export function sampledTraceId(traceparent: string | undefined): string | undefined {
  const match = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-([0-9a-f]{2})$/.exec(traceparent ?? '');
  if (match === null) return undefined;
  return (Number.parseInt(match[2]!, 16) & 1) === 1 ? match[1] : undefined;
}

/** The trace UI's page of one trace: Zipkin locally, Jaeger in Docker. */
export function traceUrl(traces: ConsoleConfig['traces'], traceId: string): string {
  return traces.kind === 'jaeger'
    ? `${traces.publicUrl}/trace/${traceId}`
    : `${traces.publicUrl}/zipkin/traces/${traceId}`;
}

interface MailpitSummary {
  readonly ID: string;
  readonly MessageID: string;
  readonly Subject: string;
  readonly To: readonly { readonly Address: string }[];
}

const bare = (messageId: string): string => messageId.replace(/^<|>$/g, '');

/**
 * The emails the mail UI holds with one of these Message-IDs. email-service derives the
 * Message-ID from the event it answers (emailMessageIdFor), so the journey finds the email of its
 * order.confirmed / order.cancelled event. maildev locally, Mailpit in Docker: both keep the
 * newest messages first.
 */
export async function findEmails(
  mail: ConsoleConfig['mail'],
  messageIds: readonly string[],
): Promise<SentEmail[]> {
  if (messageIds.length === 0) return [];
  const wanted = new Set(messageIds.map(bare));
  const listUrl =
    mail.kind === 'mailpit' ? `${mail.apiUrl}/api/v1/messages?limit=1000` : `${mail.apiUrl}/api/email`;
  const response = await fetch(listUrl, { signal: AbortSignal.timeout(3_000) });
  if (!response.ok) throw new Error(`the mail UI answered ${response.status}`);
  if (mail.kind === 'mailpit') {
    const { messages } = (await response.json()) as { messages: readonly MailpitSummary[] };
    return messages
      .filter((m) => wanted.has(bare(m.MessageID)))
      .map((m) => ({
        subject: m.Subject,
        to: m.To.map((to) => to.Address).join(', '),
        messageId: `<${bare(m.MessageID)}>`,
        url: `${mail.publicUrl}/view/${m.ID}`,
      }));
  }
  return ((await response.json()) as MaildevEmail[])
    .filter((email) => wanted.has(bare(email.headers['message-id'] ?? '')))
    .map((email) => ({
      subject: email.subject,
      to: email.to.map((to) => to.address).join(', '),
      messageId: email.headers['message-id']!,
      url: `${mail.publicUrl}/#/email/${email.id}`,
    }));
}
