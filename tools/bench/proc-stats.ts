import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime/stime (USER_HZ; 100 on every Linux we target). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far; undefined once it is gone. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name, which may itself contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * How often each thread of a process has gone to sleep waiting (on a socket, a timer, a lock)
 * and been woken since it started: its voluntary context switches, by thread id. A count, not a
 * time: a machine twice as fast makes the same wake-ups for the same work, and on a virtual
 * machine each one costs a context switch through the hypervisor. Kept per thread so that a
 * thread that ends between two readings takes only its own count along.
 */
export function voluntarySwitches(pid: number): Map<number, number> | undefined {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const byThread = new Map<number, number>();
  for (const tid of tids) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      const match = /^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status);
      if (match) byThread.set(Number(tid), Number(match[1]));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byThread;
}

/** Seconds since a process started (/proc/<pid>/stat's starttime against /proc/uptime). */
export function processAgeSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    return Number.isFinite(startTicks) && Number.isFinite(uptime)
      ? Math.round(uptime - startTicks / TICKS_PER_SECOND)
      : undefined;
  } catch {
    return undefined;
  }
}

export function rssMiB(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The pid listening on a local TCP port (e.g. the Kafka broker's JVM), via `ss`. */
export function pidListeningOn(port: number): number | undefined {
  try {
    const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
    const match = /pid=(\d+)/.exec(out);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Busy and total CPU seconds of the whole machine, from /proc/stat. */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}

/** A named set of processes whose CPU is summed (postgres is many processes). */
export interface ProcessGroup {
  readonly name: string;
  pids(): number[];
}

export interface CpuSnapshot {
  readonly at: number;
  readonly machine: { busy: number; total: number };
  /** Group -> pid -> CPU seconds so far. */
  readonly byGroup: ReadonlyMap<string, ReadonlyMap<number, number>>;
  /** Group -> thread id -> voluntary context switches so far (voluntarySwitches). */
  readonly switchesByGroup: ReadonlyMap<string, ReadonlyMap<number, number>>;
}

export interface CpuUsage {
  readonly seconds: number;
  /** CPU seconds per process group over the interval. */
  readonly byGroup: Readonly<Record<string, number>>;
  /** Wake-ups (voluntary context switches) per process group over the interval. */
  readonly wakeupsByGroup?: Readonly<Record<string, number>>;
  /** Everything else the machine did meanwhile (other users' load included). */
  readonly other: number;
  /** Machine busy seconds / (wall seconds x cores): 1 = every core busy. */
  readonly machineBusy: number;
}

export class CpuMeter {
  constructor(private readonly groups: readonly ProcessGroup[]) {}

  snapshot(): CpuSnapshot {
    const byGroup = new Map<string, Map<number, number>>();
    const switchesByGroup = new Map<string, Map<number, number>>();
    for (const group of this.groups) {
      const byPid = new Map<number, number>();
      const switches = new Map<number, number>();
      for (const pid of group.pids()) {
        const cpu = cpuSeconds(pid);
        if (cpu !== undefined) byPid.set(pid, cpu);
        for (const [tid, count] of voluntarySwitches(pid) ?? []) switches.set(tid, count);
      }
      byGroup.set(group.name, byPid);
      switchesByGroup.set(group.name, switches);
    }
    return { at: performance.now(), machine: machineCpu(), byGroup, switchesByGroup };
  }

  /** Usage between two snapshots; a process that appeared meanwhile counts from zero. */
  usage(from: CpuSnapshot, to: CpuSnapshot): CpuUsage {
    const byGroup: Record<string, number> = {};
    const wakeupsByGroup: Record<string, number> = {};
    // A process (or thread) that appeared meanwhile counts from zero; one that ended, not at all.
    const grown = (
      before: ReadonlyMap<number, number> | undefined,
      after: ReadonlyMap<number, number> | undefined,
    ): number =>
      [...(after ?? [])].reduce((sum, [id, end]) => sum + Math.max(0, end - (before?.get(id) ?? 0)), 0);
    let ours = 0;
    for (const { name } of this.groups) {
      byGroup[name] = grown(from.byGroup.get(name), to.byGroup.get(name));
      wakeupsByGroup[name] = grown(from.switchesByGroup.get(name), to.switchesByGroup.get(name));
      ours += byGroup[name];
    }
    const seconds = (to.at - from.at) / 1000;
    const busy = to.machine.busy - from.machine.busy;
    const total = to.machine.total - from.machine.total;
    return {
      seconds,
      byGroup,
      wakeupsByGroup,
      other: Math.max(0, busy - ours),
      machineBusy: total > 0 ? busy / total : 0,
    };
  }
}

/** Highest RSS seen per named process, sampled on a timer. */
export class RssWatcher {
  readonly maxMiB: Record<string, number> = {};
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly processes: () => Readonly<Record<string, number>>) {}

  start(intervalMs = 1000): void {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.sample();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    for (const [name, pid] of Object.entries(this.processes())) {
      const rss = rssMiB(pid);
      if (rss !== undefined) this.maxMiB[name] = Math.max(this.maxMiB[name] ?? 0, rss);
    }
  }
}
