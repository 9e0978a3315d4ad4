// docker-compose.yml, checked where it can be without a Docker engine, as the README's commands
// are: for every container built from this repository (the five services, the console and the
// init job), each file its command names is in the image's build context, and each environment
// variable it is given is read by the code it runs (this repository's, or the OpenTelemetry
// SDK's for the standard OTEL_* ones). The other images (Kafka, Postgres, Mailpit, Jaeger,
// Prometheus, Grafana) own their commands and variables; tests/infra/compose.spec.ts checks
// how the file uses them.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { ServiceNames } from '@pipeline/contracts';
import { REPO_ROOT } from '../support/processes';

const Service = z.object({
  build: z.unknown().optional(),
  command: z.union([z.string(), z.array(z.string())]).optional(),
  environment: z
    .union([
      z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).nullable()),
      z.array(z.string()),
    ])
    .optional(),
  healthcheck: z.object({ test: z.union([z.string(), z.array(z.string())]).optional() }).optional(),
});
const compose = z
  .object({ services: z.record(z.string(), Service) })
  .parse(parse(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }));

const ours = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);

function environmentOf(service: z.infer<typeof Service>): Record<string, string> {
  const env = service.environment ?? {};
  return Array.isArray(env)
    ? Object.fromEntries(env.map((line) => [line.split('=')[0]!, line.split('=').slice(1).join('=')]))
    : Object.fromEntries(Object.entries(env).map(([key, value]) => [key, String(value ?? '')]));
}

const words = (command: string | string[] | undefined): string[] =>
  (Array.isArray(command) ? command : (command ?? '').split(/\s+/)).filter((word) => word !== '');

/** Repository files a command line names (`infra/docker/init.sh`, `dist/tools/x.js`). */
const REPO_PATH =
  /(?:^|[\s"'(])((?:apps|libs|tools|scripts|infra|prisma|dist)\/[\w./-]+\.(?:sh|js|mjs|ts))\b/g;
const pathsIn = (text: string): string[] => [...text.matchAll(REPO_PATH)].map((match) => match[1]!);

/** The source of a built file: dist/ is compiled inside the image from the build context. */
const sourceOf = (path: string): string => path.replace(/^dist\/(.*)\.js$/, '$1.ts');

/** .dockerignore's patterns, as the build context applies them (the subset this file uses). */
const ignored = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'))
  .map(
    (pattern) =>
      new RegExp(
        `^${pattern
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*\*\//g, '(?:.*/)?')
          .replace(/\*/g, '[^/]*')}(?:/|$)`,
      ),
  );
const inBuildContext = (path: string): boolean => !ignored.some((pattern) => pattern.test(path));

function filesUnder(path: string): string[] {
  const full = join(REPO_ROOT, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter(
      (name) => /\.(ts|mjs|js|sh)$/.test(name) && !name.endsWith('.spec.ts') && !name.includes('generated/'),
    )
    .map((name) => join(path, name));
}

/** What a container built here runs: its app, or its command's script and what that runs. */
function codeOf(name: string, env: Record<string, string>, command: string[]): string[] {
  if (env.SERVICE !== undefined) {
    const app = env.SERVICE === 'console' ? 'apps/console/src' : `apps/${env.SERVICE}-service/src`;
    expect(existsSync(join(REPO_ROOT, app)), `${name}: SERVICE=${env.SERVICE} has no ${app}`).toBe(true);
    return ['Dockerfile', ...filesUnder(app), ...filesUnder('libs')];
  }
  const scripts = pathsIn(command.join(' '));
  const run = scripts.flatMap((script) => pathsIn(readFileSync(join(REPO_ROOT, script), 'utf8')));
  // The database tools and the topic provisioning import scripts/db/lib.mjs and the libraries.
  return [...scripts, ...run.map(sourceOf), ...filesUnder('scripts/db'), ...filesUnder('libs')];
}

/** `X` is read as a word, or built as `${service}_SUFFIX` for a service (the console's URLs). */
function readsVariable(code: string, variable: string): boolean {
  if (new RegExp(`\\b${variable}\\b`).test(code)) return true;
  return [...code.matchAll(/\$\{[^}]+\}(_[A-Z][A-Z0-9_]*)`/g)].some(([, suffix]) => {
    const prefix = variable.slice(0, -suffix!.length);
    return variable.endsWith(suffix!) && (ServiceNames as readonly string[]).includes(prefix.toLowerCase());
  });
}

/** The OpenTelemetry SDK reads the standard OTEL_* variables itself. */
const otelSdkReads = (variable: string): boolean =>
  spawnSync(
    'grep',
    ['-rqw', '--include=*.js', '--include=*.cjs', variable, join(REPO_ROOT, 'node_modules/@opentelemetry')],
    { encoding: 'utf8' },
  ).status === 0;

describe('docker-compose.yml: the containers built here', () => {
  it('are the five services, the console and the init job', () => {
    expect(ours.map(([name]) => name).sort()).toEqual(
      [...ServiceNames.map((service) => `${service}-service`), 'console', 'init'].sort(),
    );
  });

  describe.each(ours)('%s', (name, service) => {
    const env = environmentOf(service);
    const command = words(service.command);

    it('runs files that exist and are in the build context', () => {
      // Without a command of its own, the image's CMD runs the app SERVICE names
      // (tests/infra/compose.spec.ts checks that mapping).
      const named =
        command.length > 0
          ? pathsIn(command.join(' '))
          : [`dist/apps/${env.SERVICE === 'console' ? 'console' : `${env.SERVICE}-service`}/src/main.js`];
      expect(named.length, `${name} names no file`).toBeGreaterThan(0);
      for (const script of named.filter((path) => path.endsWith('.sh')))
        named.push(...pathsIn(readFileSync(join(REPO_ROOT, script), 'utf8')));
      for (const path of named.map(sourceOf)) {
        expect(existsSync(join(REPO_ROOT, path)), `${name} runs ${path}`).toBe(true);
        expect(inBuildContext(path), `${path} is left out by .dockerignore`).toBe(true);
      }
    });

    it('is given only environment variables its code reads', () => {
      const code = codeOf(name, env, command)
        .map((path) => readFileSync(join(REPO_ROOT, path), 'utf8'))
        .join('\n');
      const unread = Object.keys(env).filter(
        (variable) =>
          !readsVariable(code, variable) && !(variable.startsWith('OTEL_') && otelSdkReads(variable)),
      );
      expect(unread).toEqual([]);
    });
  });

  it.each(ours.filter(([, service]) => service.healthcheck?.test !== undefined))(
    "%s's healthcheck reads only variables the container is given",
    (name, service) => {
      const given = Object.keys(environmentOf(service));
      const read = [
        ...words(service.healthcheck?.test)
          .join(' ')
          .matchAll(/process\.env\.([A-Z_][A-Z0-9_]*)/g),
      ];
      expect(read.length, `${name}'s healthcheck reads no variable`).toBeGreaterThan(0);
      for (const [, variable] of read)
        expect(given, `${name}'s healthcheck reads ${variable}`).toContain(variable);
    },
  );
});
