import { describe, expect, it } from 'vitest';
import { cancellationEmail, confirmationEmail, escapeHtml, messageIdFor } from './order-email.template';

const eventId = '8f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
const order = {
  orderId: '11111111-2222-4333-8444-555555555555',
  customerEmail: 'ada@example.test',
  items: [
    { sku: 'MUG-1', quantity: 2, unitPrice: '12.5' },
    { sku: '<b>TEA</b> & "co"', quantity: 3, unitPrice: '0.1' },
  ],
  total: '25.3',
  currency: 'EUR',
};

describe('order emails', () => {
  it('derives the Message-ID from the event id', () => {
    expect(confirmationEmail(eventId, order).messageId).toBe(`<${eventId}@order-pipeline.local>`);
    expect(messageIdFor(eventId)).toBe(confirmationEmail(eventId, order).messageId);
  });

  it('lists every line as quantity × unit price with its exact amount, and the total', () => {
    const email = confirmationEmail(eventId, order);
    expect(email.to).toBe('ada@example.test');
    expect(email.subject).toBe(`Your order ${order.orderId} is confirmed`);
    expect(email.text).toContain('2 × MUG-1 at 12.50 EUR = 25.00 EUR');
    expect(email.text).toContain('3 × <b>TEA</b> & "co" at 0.10 EUR = 0.30 EUR');
    expect(email.text).toContain('Total: 25.30 EUR');
    expect(email.html).toContain('<td align="right">2 × 12.50 EUR</td>');
    expect(email.html).toContain('25.30 EUR');
  });

  it('escapes what customers typed in the HTML body', () => {
    const { html } = confirmationEmail(eventId, order);
    expect(html).not.toContain('<b>TEA</b>');
    expect(html).toContain('&lt;b&gt;TEA&lt;/b&gt; &amp; &quot;co&quot;');
    expect(escapeHtml(`'`)).toBe('&#39;');
  });

  it('states the cancellation reason in words', () => {
    const declined = cancellationEmail(eventId, order, 'payment_declined');
    expect(declined.subject).toBe(`Your order ${order.orderId} was cancelled`);
    expect(declined.text).toContain('your payment was declined');
    expect(declined.text).not.toContain('payment_declined');
    const outOfStock = cancellationEmail(eventId, order, 'out_of_stock');
    expect(outOfStock.text).toContain('some items are out of stock; your payment has been refunded');
    expect(outOfStock.html).toContain('Total');
  });
});
