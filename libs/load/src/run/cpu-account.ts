/** The load generator's own CPU, so a report shows whether the generator or the pipeline was the limit. */
export interface CpuReading {
  /** process.cpuUsage(): microseconds, every thread of the process (GC and libuv helpers too). */
  readonly userMicros: number;
  readonly systemMicros: number;
  /** Wall clock, milliseconds. */
  readonly atMs: number;
}

export interface LoadgenCpu {
  readonly wallSeconds: number;
  readonly userMs: number;
  readonly systemMs: number;
  /** CPU ms per offered order over the load (sent and dropped alike: each costs the generator). */
  readonly msPerOrder: number;
  /** CPU seconds per wall second: 1 = one core fully busy. */
  readonly coreShare: number;
}

export const readCpu = (): CpuReading => {
  const { user, system } = process.cpuUsage();
  return { userMicros: user, systemMicros: system, atMs: performance.now() };
};

export function cpuBetween(from: CpuReading, to: CpuReading, orders: number): LoadgenCpu {
  const userMs = (to.userMicros - from.userMicros) / 1000;
  const systemMs = (to.systemMicros - from.systemMicros) / 1000;
  const wallMs = to.atMs - from.atMs;
  return {
    wallSeconds: wallMs / 1000,
    userMs,
    systemMs,
    msPerOrder: orders > 0 ? (userMs + systemMs) / orders : 0,
    coreShare: wallMs > 0 ? (userMs + systemMs) / wallMs : 0,
  };
}

export const formatCpu = (cpu: LoadgenCpu): string =>
  `${cpu.msPerOrder.toFixed(3)} CPU ms per order, ${(cpu.coreShare * 100).toFixed(1)} % of a core over ${cpu.wallSeconds.toFixed(1)} s of load (user ${cpu.userMs.toFixed(0)} ms, system ${cpu.systemMs.toFixed(0)} ms)`;
