// A newcomer's terminal: a fresh clone, the machine's own Node first on the PATH, and none of the
// variables npm, Vitest or this repository's scripts set for the test run itself.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { REPO_ROOT } from '../support/processes';

/** Where the machine's own Node is (Debian's 20 on this machine kind): first on every PATH here. */
export const MACHINE_BIN = '/usr/bin';

/** Set by npm, Vite/Vitest or scripts/lib/common.sh for this run, never by a newcomer's shell. */
const RUN_ONLY =
  /^(npm_.*|INIT_CWD|NODE|NODE_ENV|NODE_OPTIONS|VITEST.*|TEST|MODE|DEV|PROD|SSR|BASE_URL|NX_.*|KAFKAJS_.*)$/;

/**
 * The caller's PATH without what the test run put on it (node_modules/.bin, the project's Node),
 * behind the machine's own bin: what a newcomer's shell finds first is the machine's Node.
 */
function machinePath(): string {
  const machineNode = realpathSync(join(MACHINE_BIN, 'node'));
  const own = (process.env.PATH ?? '').split(delimiter).filter((dir) => {
    if (dir === '' || dir.includes('node_modules')) return false;
    const node = join(dir, 'node');
    return !existsSync(node) || realpathSync(node) === machineNode;
  });
  return [MACHINE_BIN, ...own.filter((dir) => dir !== MACHINE_BIN)].join(delimiter);
}

export function newcomerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !RUN_ONLY.test(key)));
  return {
    ...env,
    PATH: machinePath(),
    // No Nx daemon outliving the clone it was started in.
    NX_DAEMON: 'false',
    ...extra,
  };
}

/**
 * A clone of this checkout's HEAD, as a newcomer's `git clone`, sharing its node_modules:
 * `npm ci` in the clone would cost about 45 s and test npm, not this README.
 */
export function freshClone(): string {
  const clone = mkdtempSync(join(tmpdir(), 'readme-'));
  execFileSync('git', ['clone', '--quiet', REPO_ROOT, clone]);
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(clone, 'node_modules'));
  // The scripts run `npm ci` when package-lock.json is newer than the installed tree
  // (scripts/lib/common.sh), and a fresh checkout always is: through the shared node_modules that
  // would reinstall it under every other test running (npm ci through the symlink empties the
  // shared tree). The tree was installed from this lock file, so the clone's copy is dated a
  // second before the tree: a Date holds whole milliseconds, and the tree's own time rounded to
  // one could land after it (it did, about every other run).
  const installed = statSync(join(REPO_ROOT, 'node_modules/.package-lock.json'));
  utimesSync(join(clone, 'package-lock.json'), installed.atime, new Date(installed.mtimeMs - 1000));
  return clone;
}

const stripAnsi = (text: string): string => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');

export interface Finished {
  readonly code: number | null;
  readonly output: string;
}

/**
 * A command typed at the prompt (`bash -c`), in a process group of its own as a terminal's
 * foreground job is: Ctrl-C (`interrupt`) reaches npm, the script and what it started at once.
 */
export class Terminal {
  private text = '';
  private readonly child: ChildProcess;
  readonly exited: Promise<Finished>;

  private constructor(
    readonly command: string,
    cwd: string,
    env: NodeJS.ProcessEnv,
  ) {
    this.child = spawn('bash', ['-c', command], {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => (this.text += chunk.toString());
    this.child.stdout?.on('data', collect);
    this.child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) =>
      this.child.on('close', (code) => resolve({ code, output: this.output() })),
    );
  }

  static start(command: string, cwd: string, env: NodeJS.ProcessEnv): Terminal {
    return new Terminal(command, cwd, env);
  }

  /** Runs `command` to its end, within `timeoutMs`; fails with its output otherwise. */
  static async run(
    command: string,
    cwd: string,
    env: NodeJS.ProcessEnv,
    timeoutMs: number,
  ): Promise<Finished> {
    const terminal = Terminal.start(command, cwd, env);
    const timer = setTimeout(() => terminal.signal('SIGKILL'), timeoutMs);
    const finished = await terminal.exited.finally(() => clearTimeout(timer));
    if (finished.code === null)
      throw new Error(
        `\`${command}\` did not finish within ${timeoutMs} ms:\n${finished.output.slice(-4000)}`,
      );
    return finished;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  output(): string {
    return stripAnsi(this.text);
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with the first match of `pattern` in the output; fails if the command ends first. */
  async waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const stopWatching = () => {
        clearTimeout(timer);
        this.child.stdout?.off('data', onData);
        this.child.stderr?.off('data', onData);
        this.child.off('exit', onExit);
      };
      const fail = (why: string) => {
        stopWatching();
        reject(new Error(`\`${this.command}\` ${why}:\n${this.output().slice(-4000)}`));
      };
      const onData = () => {
        const match = pattern.exec(this.output());
        if (match === null) return;
        stopWatching();
        resolve(match);
      };
      const onExit = () => fail(`ended before printing ${String(pattern)}`);
      const timer = setTimeout(() => fail(`printed no ${String(pattern)} within ${timeoutMs} ms`), timeoutMs);
      this.child.stdout?.on('data', onData);
      this.child.stderr?.on('data', onData);
      this.child.on('exit', onExit);
      onData();
      if (!this.running) onExit();
    });
  }

  /** Ctrl-C: SIGINT to the whole group; resolves once the command has ended, fails after `timeoutMs`. */
  async interrupt(timeoutMs: number): Promise<Finished> {
    this.signal('SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `\`${this.command}\` still ran ${timeoutMs} ms after Ctrl-C:\n${this.output().slice(-4000)}`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** To the whole group; nothing when it has already ended. */
  signal(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.pid, signal);
    } catch {
      // the group is gone
    }
  }
}
