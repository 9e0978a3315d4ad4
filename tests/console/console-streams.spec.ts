import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import { startConsole, type ConsoleUnderTest } from './console.harness';

// Every server-sent stream of the console has a cap: beyond it, 503 with the variable to raise.
describe('console: the server-sent streams are capped', () => {
  let consoleApp: ConsoleUnderTest;
  const held: AbortController[] = [];

  beforeAll(async () => {
    consoleApp = await startConsole({
      prefix: `${uniqueName('e2e.console-streams')}.`,
      token: undefined,
      env: { CONSOLE_MAX_STREAMS: '1', CONSOLE_MAX_EXPERIMENT_STREAMS: '2' },
    });
  });

  afterAll(async () => {
    held.forEach((controller) => controller.abort());
    await consoleApp?.stop();
  });

  /** Opens a stream and keeps it open until the end of the test file. */
  async function open(path: string): Promise<Response> {
    const controller = new AbortController();
    held.push(controller);
    return fetch(consoleApp.baseUrl + path, { signal: controller.signal });
  }

  async function expectRefused(path: string, variable: string): Promise<void> {
    const refused = await fetch(consoleApp.baseUrl + path);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('10');
    const body = (await refused.json()) as { reason?: string };
    expect(body.reason).toContain(variable);
  }

  it.each([
    ['/flow/stream', 'CONSOLE_MAX_STREAMS', 1],
    ['/experiments/stream', 'CONSOLE_MAX_EXPERIMENT_STREAMS', 2],
  ])('%s: %s streams at most, the next answered 503 with the reason', async (path, variable, cap) => {
    for (let n = 0; n < cap; n++) {
      const stream = await open(path);
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toBe('text/event-stream');
    }
    await expectRefused(path, variable);
  });

  it('takes a stream again once one of them has closed', async () => {
    const path = '/experiments/stream';
    await expectRefused(path, 'CONSOLE_MAX_EXPERIMENT_STREAMS');
    held.pop()!.abort();
    // The server counts the close when its socket ends: ask until the slot is free again.
    await eventually(
      async () => {
        const controller = new AbortController();
        const answer = await fetch(consoleApp.baseUrl + path, { signal: controller.signal });
        if (answer.status !== 200) {
          await answer.body?.cancel();
          return undefined;
        }
        held.push(controller);
        return true;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'a stream accepted again after one closed' },
    );
    await expectRefused(path, 'CONSOLE_MAX_EXPERIMENT_STREAMS');
  });
});
