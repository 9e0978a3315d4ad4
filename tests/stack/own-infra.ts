// Zipkin and maildev of a test's own, started by the scripts `npm run stack` starts them with
// (infra/bin/zipkin.sh, infra/bin/maildev.sh): the same heap, span bound and mail bound, on free
// ports and in a private run directory, so a test can overload them without touching the shared
// ones. The scripts read their usual variables from the caller's environment
// (ZIPKIN_MEM_MAX_SPANS, ZIPKIN_JAVA_OPTS, MAILDEV_MAX_EMAILS), e.g. to try other settings.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, REPO_ROOT } from '../support/processes';

const run = promisify(execFile);

export interface OwnInfra {
  readonly zipkinUrl: string;
  readonly smtpUrl: string;
  readonly mailApiUrl: string;
  /** Pids of the running processes, by the name the scripts give them. */
  pids(): { zipkin: number; maildev: number };
  stop(): Promise<void>;
}

export async function startOwnInfra(): Promise<OwnInfra> {
  const runRoot = await mkdtemp(join(tmpdir(), 'own-infra-'));
  const [zipkinPort, smtpPort, webPort] = [await freePort(), await freePort(), await freePort()];
  const env = {
    ...process.env,
    PROC_RUN_ROOT: runRoot,
    ZIPKIN_PORT: String(zipkinPort),
    MAILDEV_SMTP_PORT: String(smtpPort),
    MAILDEV_WEB_PORT: String(webPort),
  };
  const script = (name: string, command: string) =>
    run('bash', [join(REPO_ROOT, 'infra/bin', `${name}.sh`), command], { env, cwd: REPO_ROOT });
  const pid = (name: string) =>
    Number(readFileSync(join(runRoot, name, `${name}.pid`), 'utf8').split('\n')[0]);
  const stop = async () => {
    await Promise.allSettled([script('zipkin', 'stop'), script('maildev', 'stop')]);
    await rm(runRoot, { recursive: true, force: true });
  };
  const started = await Promise.allSettled([script('zipkin', 'start'), script('maildev', 'start')]);
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return {
    zipkinUrl: `http://127.0.0.1:${zipkinPort}`,
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    mailApiUrl: `http://127.0.0.1:${webPort}/api/email`,
    pids: () => ({ zipkin: pid('zipkin'), maildev: pid('maildev') }),
    stop,
  };
}

/**
 * The sum of a Zipkin metric over its labels, from its own /prometheus endpoint:
 * `jvm_gc_pause_seconds_sum` (time in GC), `zipkin_collector_spans_total` (spans received).
 */
export async function zipkinMetric(zipkinUrl: string, name: string, timeoutMs = 10_000): Promise<number> {
  let text: string;
  try {
    text = await (await fetch(`${zipkinUrl}/prometheus`, { signal: AbortSignal.timeout(timeoutMs) })).text();
  } catch (error) {
    throw new Error(`Zipkin does not answer /prometheus: ${String(error)}`);
  }
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** MEM_MAX_SPANS as the running Zipkin got it from infra/bin/zipkin.sh. */
export function zipkinSpanBound(pid: number): number {
  const entry = readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .find((pair) => pair.startsWith('MEM_MAX_SPANS='));
  return Number(entry?.split('=')[1]);
}
