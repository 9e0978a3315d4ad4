import { describe, expect, it } from 'vitest';
import {
  arrivals,
  constantRate,
  runClosedModel,
  runOpenModel,
  steppedRate,
  systemClock,
  type Clock,
  type Slot,
} from './scheduler';

/** Virtual time: sleeping advances the clock at once, so the tests never wait. */
function fakeClock(start = 1_000_000): Clock & { t: number } {
  const clock = {
    t: start,
    now: () => clock.t,
    sleep: (ms: number) => {
      clock.t += ms;
      return Promise.resolve();
    },
  };
  return clock;
}

describe('open model', () => {
  it('issues each request at its scheduled time, 1/rate apart', async () => {
    const clock = fakeClock();
    const sent: { slot: Slot; at: number }[] = [];
    await runOpenModel({
      profile: constantRate(10, 1),
      maxInFlight: 100,
      clock,
      send: (slot) => {
        sent.push({ slot, at: clock.now() });
        return Promise.resolve();
      },
      onDropped: () => expect.fail('nothing should be dropped'),
    });
    expect(sent.map((s) => s.slot.scheduledAt - 1_000_000)).toEqual([
      0, 100, 200, 300, 400, 500, 600, 700, 800, 900,
    ]);
    for (const { slot, at } of sent) expect(at).toBeCloseTo(slot.scheduledAt, 6);
    expect(sent.map((s) => s.slot.sequence)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('does not wait for responses: slow requests overlap', async () => {
    const clock = fakeClock();
    const releases: (() => void)[] = [];
    const run = runOpenModel({
      profile: constantRate(5, 1),
      maxInFlight: 100,
      clock,
      send: () => new Promise<void>((resolve) => releases.push(resolve)),
      onDropped: () => expect.fail('nothing should be dropped'),
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(releases).toHaveLength(5);
    releases.forEach((release) => release());
    await run;
  });

  it('drops (and reports) requests due while max-in-flight are outstanding', async () => {
    const clock = fakeClock();
    const releases: (() => void)[] = [];
    const dropped: number[] = [];
    const run = runOpenModel({
      profile: constantRate(10, 1),
      maxInFlight: 3,
      clock,
      send: () => new Promise<void>((resolve) => releases.push(resolve)),
      onDropped: (slot) => dropped.push(slot.sequence),
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(releases).toHaveLength(3);
    expect(dropped).toEqual([3, 4, 5, 6, 7, 8, 9]);
    releases.forEach((release) => release());
    await run;
  });

  it('stops sending as soon as its signal aborts, without awaiting the requests in flight', async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    let sent = 0;
    await runOpenModel({
      profile: constantRate(10, 60),
      maxInFlight: 1000,
      clock,
      // Never answers: the run must end all the same.
      send: () => {
        if (++sent === 3) controller.abort();
        return new Promise<void>(() => undefined);
      },
      onDropped: () => expect.fail('nothing should be dropped'),
      signal: controller.signal,
    });
    expect(sent).toBe(3);
  });

  it('follows stepped rates', () => {
    const times = [...arrivals(steppedRate([2, 4], 1), 0)];
    expect(times).toEqual([0, 500, 1000, 1250, 1500, 1750]);
  });
});

describe('closed model', () => {
  it('keeps N clients busy until the duration ends', async () => {
    const clock = fakeClock();
    let concurrent = 0;
    let maxConcurrent = 0;
    let count = 0;
    await runClosedModel({
      clients: 2,
      durationSeconds: 1,
      clock,
      send: async () => {
        count++;
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        await clock.sleep(50);
        concurrent--;
      },
    });
    expect(maxConcurrent).toBe(2);
    expect(count).toBe(20);
  });

  it('returns when its signal aborts, even with every client waiting for an answer', async () => {
    const controller = new AbortController();
    let sent = 0;
    await runClosedModel({
      clients: 2,
      durationSeconds: 3600,
      clock: fakeClock(),
      send: () => {
        if (++sent === 2) controller.abort();
        return new Promise<void>(() => undefined);
      },
      signal: controller.signal,
    });
    expect(sent).toBe(2);
  });
});

describe('system clock', () => {
  it('wakes a sleep when the signal aborts', async () => {
    const controller = new AbortController();
    const slept = systemClock.sleep(3_600_000, controller.signal);
    controller.abort();
    await expect(slept).resolves.toBeUndefined();
  });
});
