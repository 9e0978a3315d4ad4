import { describe, expect, it } from 'vitest';
import { abortableSleep, untilAborted, waitFor } from './lab-wait';

describe('lab waits', () => {
  it('waitFor returns the first value the probe gives', async () => {
    let calls = 0;
    const value = await waitFor('three calls', () => (++calls === 3 ? 'ready' : undefined), {
      signal: new AbortController().signal,
      intervalMs: 1,
    });
    expect([value, calls]).toEqual(['ready', 3]);
  });

  it('waitFor gives up after its timeout, naming what it waited for', async () => {
    await expect(
      waitFor('nothing', () => undefined, {
        signal: new AbortController().signal,
        timeoutMs: 5,
        intervalMs: 1,
      }),
    ).rejects.toThrow('waiting for nothing');
  });

  it('an abort ends a sleep and a wait at once', async () => {
    const abort = new AbortController();
    const sleeping = abortableSleep(60_000, abort.signal);
    const waiting = untilAborted(new Promise<never>(() => undefined), abort.signal);
    abort.abort(new Error('stopped'));
    await expect(sleeping).rejects.toThrow('stopped');
    await expect(waiting).rejects.toThrow('stopped');
    await expect(waitFor('x', () => 1, { signal: abort.signal })).rejects.toThrow('stopped');
  });
});
