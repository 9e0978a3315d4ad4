// README.md as a newcomer types it: every command of its ```bash blocks, in the README's order,
// in a fresh clone, from a shell whose PATH finds the machine's own Node first (Debian's 20 here,
// which cannot load the load generator: undici needs node:zlib's zstd). How each one runs, or why
// it cannot run here and what is checked instead, is tests/readme/readme-plan.ts.
//
// One `npm run stack` serves the whole walk-through; Ctrl-C stops it in the last test, as the
// README says. It uses the infrastructure this checkout runs (npm test starts it): the clone's
// scripts are pointed at this checkout's .run/ (PROC_RUN_ROOT, KAFKA_RUN_DIR), so they find
// Kafka, maildev and Zipkin running and neither start nor stop them. The services take the
// README's fixed ports 3000-3005 (no other test uses them) and the pipeline's own databases and
// topics, as `npm run stack` does on any machine.
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/processes';
import { MACHINE_BIN, Terminal, freshClone, newcomerEnv } from './newcomer';
import { readReadme, readmeCommands, type ReadmeCommand } from './readme-commands';
import { README_PLAN, type PlanEntry, type ReadmeRun } from './readme-plan';

/** Build, databases, topics and six processes on two busy cores. */
const STACK_START_MS = 180_000;
const STACK_PORTS = [3000, 3001, 3002, 3003, 3004, 3005];

const answers = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

const title = ({ line, text }: ReadmeCommand, entry: PlanEntry | undefined): string =>
  `README.md:${line} ${text.length > 90 ? `${text.slice(0, 87)}...` : text} (${entry?.how ?? 'not in the plan'})`;

describe("README.md's commands, typed in a fresh clone with the machine's Node first on PATH", () => {
  const commands = readmeCommands(readReadme());
  let clone: string | undefined;
  let run: ReadmeRun | undefined;

  beforeAll(async () => {
    const taken = (await Promise.all(STACK_PORTS.map(answers))).flatMap((up, i) =>
      up ? [STACK_PORTS[i]] : [],
    );
    if (taken.length > 0)
      throw new Error(
        `ports ${taken.join(', ')} answer: a stack already runs here (npm run stack?); stop it, this test starts the README's own`,
      );
    clone = freshClone();
    // kafka.sh knows its broker by the folder on the JVM's command line: the same spelling.
    const runDir = (path: string) => (existsSync(path) ? realpathSync(path) : path);
    const env = newcomerEnv({
      PROC_RUN_ROOT: runDir(join(REPO_ROOT, '.run')),
      KAFKA_RUN_DIR: runDir(join(REPO_ROOT, '.run/kafka')),
    });
    const shell = await Terminal.run('command -v node', clone, env, 10_000);
    expect(shell.output.trim()).toBe(join(MACHINE_BIN, 'node'));
    const stack = Terminal.start('npm run stack', clone, env);
    run = {
      clone,
      env,
      stack,
      projectNode: `v${readFileSync(join(clone, '.nvmrc'), 'utf8').trim()}`,
      order: {},
    };
    await stack.waitFor(/The pipeline is up/, STACK_START_MS);
  }, STACK_START_MS + 30_000);

  // Only when a test failed before the last one stopped the stack.
  afterAll(async () => {
    if (run?.stack.running) {
      run.stack.signal('SIGINT');
      const stopped = await Promise.race([
        run.stack.exited.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 40_000)),
      ]);
      if (!stopped) {
        // The supervisor runs in a session of its own (setsid): its pid and the services' too.
        run.stack.signal('SIGKILL');
        const services = join(run.clone, '.run/services');
        const pidFiles = [
          join(run.clone, '.run/stack.pid'),
          ...(existsSync(services) ? readdirSync(services) : [])
            .filter((name) => name.endsWith('.pid'))
            .map((name) => join(services, name)),
        ];
        for (const file of pidFiles) {
          try {
            process.kill(Number(readFileSync(file, 'utf8')), 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
    }
    if (clone !== undefined) rmSync(clone, { recursive: true, force: true });
  }, 60_000);

  const ready = (): ReadmeRun => {
    if (run === undefined) throw new Error('the stack did not start');
    return run;
  };

  for (const command of commands) {
    const entry = README_PLAN[command.text];
    it(
      title(command, entry),
      async () => {
        if (entry === undefined)
          throw new Error(
            `README.md:${command.line} \`${command.text}\` is not in tests/readme/readme-plan.ts: run it there, or say why it cannot run`,
          );
        await entry.check(ready(), command.text);
      },
      entry?.timeoutMs ?? 60_000,
    );
  }

  it('Ctrl-C stops everything `npm run stack` started, and leaves the infrastructure it found running', async () => {
    const { stack, clone: root } = ready();
    const pids = ['order', 'payment', 'inventory', 'email', 'analytics', 'console'].map((name) =>
      Number(readFileSync(join(root, '.run/services', `${name}.pid`), 'utf8')),
    );
    const { output } = await stack.interrupt(40_000);
    expect(output).toMatch(/\[stack\] stopped/);
    expect(output).not.toMatch(/\[stack\] stopping infrastructure/);
    for (const pid of pids) expect(() => process.kill(pid, 0), `pid ${pid}`).toThrow();
    expect(await Promise.all(STACK_PORTS.map(answers))).toEqual(STACK_PORTS.map(() => false));
    expect(await answers(9092)).toBe(true);
  }, 60_000);
});
