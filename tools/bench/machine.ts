import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { readFileSync } from 'node:fs';

export interface MachineDescription {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly kernel: string;
  readonly node: string;
  readonly kafka: string;
  readonly postgres: string;
  readonly loadAverageAtStart: readonly number[];
}

const safe = (read: () => string, fallback = 'unknown'): string => {
  try {
    return read().trim() || fallback;
  } catch {
    return fallback;
  }
};

export function describeMachine(repoRoot: string, postgresVersion: string): MachineDescription {
  return {
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: safe(() => /PRETTY_NAME="([^"]+)"/.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? ''),
    kernel: safe(() => execFileSync('uname', ['-r'], { encoding: 'utf8' })),
    node: process.version,
    kafka: safe(
      () =>
        process.env.KAFKA_VERSION ??
        /KAFKA_VERSION_DEFAULT="([^"]+)"/.exec(
          readFileSync(`${repoRoot}/infra/bin/lib/kafka-common.sh`, 'utf8'),
        )?.[1] ??
        '',
    ),
    postgres: postgresVersion,
    loadAverageAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}
