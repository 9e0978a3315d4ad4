import { describe, expect, it } from 'vitest';
import type { PendingEvent } from './event-batch';
import { eachKeyInOrder } from './event-handlers';

let offset = 0;
const event = (key: string): PendingEvent =>
  ({
    payload: null,
    metadata: { id: String(offset), type: 't', source: 's', time: '', correlationId: key },
    position: { topic: 't', partition: 0, offset: String(offset++), key },
    attempt: 1,
    sampled: false,
  }) as unknown as PendingEvent;

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('eachKeyInOrder', () => {
  it('runs different keys at once, up to the limit, and one key’s events in order', async () => {
    offset = 0;
    const events = [event('a'), event('b'), event('a'), event('c'), event('b'), event('d')];
    let running = 0;
    let most = 0;
    const finished: string[] = [];
    await eachKeyInOrder(events, 2, async (e) => {
      running += 1;
      most = Math.max(most, running);
      await tick();
      finished.push(`${e.position.key}${e.position.offset}`);
      running -= 1;
    });
    expect(most).toBe(2);
    expect(finished).toHaveLength(6);
    const order = (key: string) => finished.filter((f) => f.startsWith(key));
    expect(order('a')).toEqual(['a0', 'a2']);
    expect(order('b')).toEqual(['b1', 'b4']);
  });

  it('stops at the first failure, lets running work finish, and rethrows it', async () => {
    offset = 0;
    const events = [event('a'), event('b'), event('c'), event('d'), event('e')];
    const started: string[] = [];
    const failure = new Error('smtp said no');
    await expect(
      eachKeyInOrder(events, 2, async (e) => {
        started.push(e.position.key!);
        await tick();
        if (e.position.key === 'a') throw failure;
      }),
    ).rejects.toBe(failure);
    expect(started).toEqual(['a', 'b']);
  });

  it('runs one at a time in list order without concurrency', async () => {
    offset = 0;
    const seen: string[] = [];
    await eachKeyInOrder([event('a'), event('b'), event('a')], 1, async (e) => {
      seen.push(e.position.offset);
      await tick();
    });
    expect(seen).toEqual(['0', '1', '2']);
  });
});
