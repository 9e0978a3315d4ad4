/**
 * The Message-ID of the email that answers an event, derived from the event id: the same event
 * always yields the same Message-ID (a resend is recognisable), and the operations console finds
 * an order's email in the mail UI by it. A contract: never change the format.
 */
export const emailMessageIdFor = (eventId: string): string => `<${eventId}@order-pipeline.local>`;

/**
 * Emails email-service has in flight at once, at most: one per pooled SMTP connection. It is also
 * the email contract's resend bound: a kill -9 inside the SMTP window may send each of them again
 * (with the same Message-ID) after the restart, and nothing else (docs/reliability.md).
 */
export const EMAIL_MAX_IN_FLIGHT = 5;
