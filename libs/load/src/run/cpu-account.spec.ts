import { describe, expect, it } from 'vitest';
import { cpuBetween, formatCpu, readCpu } from './cpu-account';

describe('cpuBetween', () => {
  it('turns two readings into CPU ms per order and a share of one core', () => {
    const cpu = cpuBetween(
      { userMicros: 1_000_000, systemMicros: 200_000, atMs: 10_000 },
      { userMicros: 4_000_000, systemMicros: 700_000, atMs: 30_000 },
      20_000,
    );
    expect(cpu).toEqual({
      wallSeconds: 20,
      userMs: 3000,
      systemMs: 500,
      msPerOrder: 0.175,
      coreShare: 0.175,
    });
    expect(formatCpu(cpu)).toBe(
      '0.175 CPU ms per order, 17.5 % of a core over 20.0 s of load (user 3000 ms, system 500 ms)',
    );
  });

  it('reports no cost per order when there were no orders', () => {
    const at = { userMicros: 5, systemMicros: 5, atMs: 1 };
    expect(cpuBetween(at, at, 0)).toMatchObject({ msPerOrder: 0, coreShare: 0 });
  });

  it("reads this process's CPU, never more than the wall time allows per thread", () => {
    const from = readCpu();
    // Busy until 30 ms of CPU have been used (bounded: a loaded machine gives us less per second).
    let to = readCpu();
    while (
      to.userMicros + to.systemMicros - from.userMicros - from.systemMicros < 30_000 &&
      to.atMs - from.atMs < 10_000
    )
      to = readCpu();
    const cpu = cpuBetween(from, to, 3);
    expect(cpu.userMs + cpu.systemMs).toBeGreaterThanOrEqual(30);
    expect(cpu.msPerOrder).toBeCloseTo((cpu.userMs + cpu.systemMs) / 3, 6);
    // The busy loop is one thread; helper threads (GC) add little.
    expect(cpu.coreShare).toBeGreaterThan(0);
    expect(cpu.coreShare).toBeLessThan(1.5);
  });
});
