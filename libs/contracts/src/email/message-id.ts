/**
 * The Message-ID of the email that answers an event, derived from the event id: the same event
 * always yields the same Message-ID (a resend is recognisable), and the operations console finds
 * an order's email in the mail UI by it. A contract: never change the format.
 */
export const emailMessageIdFor = (eventId: string): string => `<${eventId}@order-pipeline.local>`;
