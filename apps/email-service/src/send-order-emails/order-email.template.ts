import type { OutgoingEmail } from '../mail/mail-sender';
import {
  emailMessageIdFor,
  lineTotal,
  normaliseAmount,
  type OrderCancellationReason,
  type OrderItem,
} from '@pipeline/contracts';

/** What every order email shows: the order's lines and total. */
export interface OrderSummary {
  readonly orderId: string;
  readonly customerEmail: string;
  readonly items: readonly OrderItem[];
  readonly total: string;
  readonly currency: string;
}

/** Derived from the event id (the contract's emailMessageIdFor). */
export const messageIdFor = emailMessageIdFor;

const REASONS: Readonly<Record<OrderCancellationReason, string>> = {
  payment_declined: 'your payment was declined, so nothing was charged',
  out_of_stock: 'some items are out of stock; your payment has been refunded',
};

export const reasonInWords = (reason: OrderCancellationReason): string => REASONS[reason];

export function confirmationEmail(eventId: string, order: OrderSummary): OutgoingEmail {
  return orderEmail(eventId, order, {
    subject: `Your order ${order.orderId} is confirmed`,
    headline: `Your order ${order.orderId} is confirmed.`,
    closing: 'Thank you for your order.',
  });
}

export function cancellationEmail(
  eventId: string,
  order: OrderSummary,
  reason: OrderCancellationReason,
): OutgoingEmail {
  return orderEmail(eventId, order, {
    subject: `Your order ${order.orderId} was cancelled`,
    headline: `Your order ${order.orderId} was cancelled: ${reasonInWords(reason)}.`,
    closing: 'We are sorry. You are welcome to place the order again.',
  });
}

interface Wording {
  readonly subject: string;
  readonly headline: string;
  readonly closing: string;
}

function orderEmail(eventId: string, order: OrderSummary, wording: Wording): OutgoingEmail {
  const { currency } = order;
  const lines = order.items.map((item) => ({
    sku: item.sku,
    quantity: String(item.quantity),
    unitPrice: `${normaliseAmount(item.unitPrice)} ${currency}`,
    amount: `${lineTotal(item.quantity, item.unitPrice)} ${currency}`,
  }));
  const total = `${normaliseAmount(order.total)} ${currency}`;
  const text = [
    'Hello,',
    '',
    wording.headline,
    '',
    ...lines.map((line) => `  ${line.quantity} × ${line.sku} at ${line.unitPrice} = ${line.amount}`),
    '',
    `Total: ${total}`,
    '',
    wording.closing,
    '',
  ].join('\n');
  const rows = lines
    .map(
      (line) =>
        `<tr><td>${escapeHtml(line.sku)}</td><td align="right">${line.quantity} × ${escapeHtml(line.unitPrice)}</td>` +
        `<td align="right">${escapeHtml(line.amount)}</td></tr>`,
    )
    .join('\n');
  const html = [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif">',
    '<p>Hello,</p>',
    `<p>${escapeHtml(wording.headline)}</p>`,
    '<table cellpadding="4">',
    '<thead><tr><th align="left">Item</th><th align="right">Quantity × unit price</th><th align="right">Amount</th></tr></thead>',
    `<tbody>\n${rows}\n</tbody>`,
    `<tfoot><tr><th align="left" colspan="2">Total</th><th align="right">${escapeHtml(total)}</th></tr></tfoot>`,
    '</table>',
    `<p>${escapeHtml(wording.closing)}</p>`,
    '</body></html>',
  ].join('\n');
  return { to: order.customerEmail, subject: wording.subject, text, html, messageId: messageIdFor(eventId) };
}

/** SKUs come from customers: never let one become markup. */
export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
