import { describe, expect, it } from 'vitest';
import { wakeupsPerOrder } from './assemble-results';
import { CpuMeter, voluntarySwitches } from './proc-stats';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('wake-ups from /proc', () => {
  it('counts each time a process slept and was woken, over all its threads', async () => {
    const mainThread = (): number => voluntarySwitches(process.pid)!.get(process.pid)!;
    const before = mainThread();
    // A timer sleeps the event loop's thread in epoll_wait until it fires (unless a slow turn of
    // the loop made it due already): about one wake-up each.
    for (let i = 0; i < 20; i++) await sleep(5);
    expect(mainThread() - before).toBeGreaterThanOrEqual(10);
    expect(voluntarySwitches(2 ** 22 + 1)).toBeUndefined();
  });

  it('measures them per group between two snapshots, and per order', async () => {
    const meter = new CpuMeter([{ name: 'me', pids: () => [process.pid] }]);
    const from = meter.snapshot();
    for (let i = 0; i < 20; i++) await sleep(5);
    const usage = meter.usage(from, meter.snapshot());
    expect(usage.wakeupsByGroup!.me).toBeGreaterThanOrEqual(10);
    expect(wakeupsPerOrder({ ...usage, wakeupsByGroup: { me: 250, kafka: 125 } }, 100)).toEqual({
      total: 3.8,
      byProcess: { me: 2.5, kafka: 1.3 },
    });
  });
});
