// CPU time of processes read from /proc (Linux), as `top` would show it: what a test can measure
// of any process it knows the pid of, a JVM as well as a Node service.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's times: USER_HZ, 100 on Linux. */
const TICKS_PER_SECOND = 100;

/** User + system CPU time of a process so far, in ms. */
export function cpuTimeMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may contain spaces:
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** Each process's share of one core over `windowMs` (0.25: a quarter of a core). */
export async function coreShares(
  pids: Readonly<Record<string, number>>,
  windowMs: number,
): Promise<Record<string, number>> {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuTimeMs(pid)]));
  const start = performance.now();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const elapsed = performance.now() - start;
  return Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [name, (cpuTimeMs(pid) - (before[name] ?? 0)) / elapsed]),
  );
}
