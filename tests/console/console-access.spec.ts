import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/kafka';
import { eventually, freePort } from '../support/processes';
import { launchBrowser, screenshot, startConsole, TOKEN, type ConsoleUnderTest } from './console.harness';

/** Every route that changes something, with a body that would be valid. */
const ACTIONS: readonly { readonly path: string; readonly body: string }[] = [
  { path: '/demo-orders', body: 'outcome=confirmed&customerEmail=a%40example.test' },
  { path: '/dead-letters/payment/redrive', body: 'scope=all' },
  { path: '/groups/test.some-group/reset', body: 'confirm=yes' },
  { path: '/load/start', body: 'rate=5&duration=3' },
  { path: '/load/stop', body: '' },
  { path: '/experiments/windows/run', body: '' },
  { path: '/experiments/stop', body: '' },
];

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });

// A stand-in order-service that counts the orders placed with it: a refused action places none.
async function countingOrderService(): Promise<{ server: Server; url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/orders') requests += 1;
    response.writeHead(202, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ orderId: '00000000-0000-4000-8000-000000000000', status: 'PENDING' }));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${port}`, requests: () => requests };
}

describe('console: safe by default', () => {
  const prefix = `${uniqueName('e2e.console-access')}.`;
  let readOnly: ConsoleUnderTest;
  let guarded: ConsoleUnderTest;
  let orderService: Awaited<ReturnType<typeof countingOrderService>>;
  let browser: Browser;

  beforeAll(async () => {
    orderService = await countingOrderService();
    [readOnly, guarded] = await Promise.all([
      startConsole({ prefix, token: undefined, services: { order: [orderService.url] } }),
      startConsole({ prefix, services: { order: [orderService.url] } }),
    ]);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.allSettled([readOnly?.stop(), guarded?.stop()]);
    orderService?.server.close();
  });

  it('binds to 127.0.0.1 by default', () => {
    expect(readOnly.process.output()).toContain(`console on http://127.0.0.1:`);
  });

  it('refuses every action with 403 without CONSOLE_TOKEN, even with a bearer token, and says why', async () => {
    for (const { path, body } of ACTIONS) {
      const variants: Record<string, string>[] = [
        {},
        { authorization: `Bearer ${TOKEN}` },
        { accept: 'application/json' },
      ];
      for (const headers of variants) {
        const response = await post(readOnly.baseUrl + path, body, headers);
        expect(response.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(await response.text()).toContain('started without CONSOLE_TOKEN');
      }
    }
    expect(orderService.requests()).toBe(0);

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(readOnly.baseUrl);
    await expect(page.locator('#read-only-reason').textContent()).resolves.toContain(
      'started without CONSOLE_TOKEN',
    );
    // The button stays reachable and says why it is refused.
    const button = page.getByRole('button', { name: 'Place order' });
    await expect(button.getAttribute('aria-describedby')).resolves.toBe('read-only-reason');
    await button.click();
    // The form posts in the background: wait for its answer, not for the "Sending…" before it.
    await page.locator('#demo-result', { hasText: 'Refused (403)' }).waitFor();
    await screenshot(page, 'read-only');
    await page.close();
    expect(orderService.requests()).toBe(0);
  });

  it('with a token: refuses without it, with a wrong one, and a signed-in form without its CSRF token', async () => {
    for (const { path, body } of ACTIONS) {
      expect((await post(guarded.baseUrl + path, body)).status, path).toBe(403);
      expect(
        (await post(guarded.baseUrl + path, body, { authorization: 'Bearer wrong-token' })).status,
        path,
      ).toBe(403);
    }
    const wrongLogin = await post(guarded.baseUrl + '/login', 'token=wrong-token');
    expect(wrongLogin.status).toBe(403);

    // Signed in through the form: the session cookie alone is not enough, the CSRF token is needed.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${guarded.baseUrl}/login`);
    await page.getByLabel('Console token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${guarded.baseUrl}/`);
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const forged = await post(guarded.baseUrl + '/demo-orders', 'outcome=confirmed', { cookie });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('CSRF');
    expect(orderService.requests()).toBe(0);

    // The page's own form carries it: the action goes through and is logged with what it changed.
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.locator('#demo-result', { hasText: 'Placed order' }).waitFor();
    expect(orderService.requests()).toBe(1);
    // The console's log reaches the test through a pipe, a little after the answer.
    await eventually(
      () =>
        /"action":"demo-order".*"orderId":"00000000-0000-4000-8000-000000000000"/.test(
          guarded.process.output(),
        )
          ? Promise.resolve(true)
          : Promise.resolve(undefined),
      { timeoutMs: 10_000, what: 'the demo-order action in the console log' },
    );
    await context.close();

    // A script with the bearer token needs no CSRF token (browsers never send that header alone).
    const scripted = await post(guarded.baseUrl + '/demo-orders', 'outcome=declined', {
      authorization: `Bearer ${TOKEN}`,
      accept: 'application/json',
    });
    expect(scripted.status).toBe(200);
    expect(orderService.requests()).toBe(2);
  });

  it('renders no secret: the token is on no page', async () => {
    for (const path of ['/', '/login', '/topics', '/groups', '/dead-letters']) {
      const text = await (await fetch(guarded.baseUrl + path)).text();
      expect(text, path).not.toContain(TOKEN);
    }
  });
});
