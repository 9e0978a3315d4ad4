import { describe, expect, it } from 'vitest';
import { pause, waitFor } from './abortable';

describe('waits that honour the run signal', () => {
  it('waitFor returns the first value the probe gives, asking again after a throw', async () => {
    let calls = 0;
    const value = await waitFor(
      'three calls',
      () => {
        if (++calls === 1) throw new Error('not yet');
        return calls === 3 ? 'ready' : undefined;
      },
      { signal: new AbortController().signal, intervalMs: 1 },
    );
    expect([value, calls]).toEqual(['ready', 3]);
  });

  it('waitFor gives up after its timeout, naming what it waited for and the last error', async () => {
    await expect(
      waitFor(
        'nothing',
        () => {
          throw new Error('broker down');
        },
        { signal: new AbortController().signal, timeoutMs: 5, intervalMs: 1 },
      ),
    ).rejects.toThrow('waiting for nothing (last error: broker down)');
  });

  it('an abort ends a pause and a wait at once', async () => {
    const abort = new AbortController();
    const pausing = pause(60_000, abort.signal);
    abort.abort(new Error('stopped'));
    await expect(pausing).rejects.toThrow('stopped');
    await expect(waitFor('x', () => 1, { signal: abort.signal })).rejects.toThrow('stopped');
  });
});
