// Structure of docker-compose.yml and the Dockerfile, checked without a Docker engine:
// the app services' and the console's ports, environment, healthchecks and start order; image
// pins that must agree with the rest of the repo; a dependency graph without cycles; build
// targets that exist; the image's command for each app.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { baseConfigSchema, loadConfig } from '@pipeline/service-kit';

const ROOT = path.resolve(__dirname, '../..');
const readRepoFile = (relative: string): string => readFileSync(path.join(ROOT, relative), 'utf8');

// ---- the part of the compose spec this test reads -------------------------------------------------

const Scalar = z.union([z.string(), z.number(), z.boolean()]);
const Condition = z.enum(['service_started', 'service_healthy', 'service_completed_successfully']);

const ServiceSchema = z.object({
  image: z.string().optional(),
  build: z
    .union([
      z.string(),
      z.object({
        context: z.string().optional(),
        dockerfile: z.string().optional(),
        target: z.string().optional(),
      }),
    ])
    .optional(),
  environment: z.union([z.record(z.string(), Scalar.nullable()), z.array(z.string())]).optional(),
  depends_on: z
    .union([z.array(z.string()), z.record(z.string(), z.object({ condition: Condition.optional() }))])
    .optional(),
  ports: z
    .array(
      z.union([
        z.string(),
        z.number(),
        z.object({
          target: z.number(),
          published: Scalar.optional(),
          host_ip: z.string().optional(),
          protocol: z.string().optional(),
        }),
      ]),
    )
    .optional(),
  healthcheck: z
    .object({ test: z.union([z.string(), z.array(z.string())]).optional(), disable: z.boolean().optional() })
    .optional(),
  restart: z.string().optional(),
  volumes: z
    .array(
      z.union([
        z.string(),
        z.object({ type: z.string().optional(), source: z.string().optional(), target: z.string() }),
      ]),
    )
    .optional(),
});
type Service = z.infer<typeof ServiceSchema>;

const ComposeSchema = z.object({ services: z.record(z.string(), ServiceSchema) });

// ---- helpers for the repeated lookups --------------------------------------------------------------

/** `${VAR:-default}` / `${VAR-default}` → default; the test must not depend on the caller's env. */
function interpolate(value: string): string {
  return value.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^}]*)\}/g, '$1');
}

function loadCompose(): { raw: Record<string, unknown>; services: Record<string, Service> } {
  // merge: true resolves `<<: *anchor` the way Docker Compose does.
  const raw: unknown = parse(readRepoFile('docker-compose.yml'), { merge: true });
  const record = z.record(z.string(), z.unknown()).parse(raw);
  return { raw: record, services: ComposeSchema.parse(raw).services };
}

const compose = loadCompose();
const serviceNames = Object.keys(compose.services);

function service(name: string): Service {
  const found = compose.services[name];
  if (!found)
    throw new Error(`docker-compose.yml has no service "${name}" (has: ${serviceNames.join(', ')})`);
  return found;
}

function envOf(name: string): Record<string, string> {
  const env = service(name).environment ?? {};
  const entries = Array.isArray(env)
    ? env.map((line): [string, string] => {
        const eq = line.indexOf('=');
        return eq < 0 ? [line, ''] : [line.slice(0, eq), line.slice(eq + 1)];
      })
    : Object.entries(env).map(([key, value]): [string, string] => [key, value === null ? '' : String(value)]);
  return Object.fromEntries(entries.map(([key, value]) => [key, interpolate(value)]));
}

/** depends_on as target → condition (the short list form means service_started). */
function dependsOn(name: string): Record<string, string> {
  const deps = service(name).depends_on ?? {};
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((target) => [target, 'service_started']));
  return Object.fromEntries(
    Object.entries(deps).map(([target, spec]) => [target, spec.condition ?? 'service_started']),
  );
}

interface PortMapping {
  hostIp: string;
  hostPort: number;
  containerPort: number;
  protocol: string;
}

function portsOf(name: string): PortMapping[] {
  return (service(name).ports ?? []).map((entry): PortMapping => {
    if (typeof entry === 'object') {
      const published = Number(interpolate(String(entry.published ?? entry.target)));
      return {
        hostIp: entry.host_ip ?? '0.0.0.0',
        hostPort: published,
        containerPort: entry.target,
        protocol: entry.protocol ?? 'tcp',
      };
    }
    // Short syntax: [HOST_IP:][HOST_PORT:]CONTAINER_PORT[/PROTOCOL]
    const [spec = '', protocol = 'tcp'] = interpolate(String(entry)).split('/');
    const parts = spec.split(':');
    const containerPort = Number(parts.at(-1));
    const hostPort = parts.length >= 2 ? Number(parts.at(-2)) : Number.NaN;
    const hostIp = parts.length >= 3 ? parts.slice(0, -2).join(':') : '0.0.0.0';
    return { hostIp, hostPort, containerPort, protocol };
  });
}

/** The healthcheck's command line, '' when there is none (or it is disabled). */
function healthcheckCommand(name: string): string {
  const healthcheck = service(name).healthcheck;
  const test = healthcheck?.disable === true ? undefined : healthcheck?.test;
  if (test === undefined || test[0] === 'NONE') return '';
  if (typeof test === 'string') return test;
  const [kind, ...rest] = test;
  return kind === 'CMD' || kind === 'CMD-SHELL' ? rest.join(' ') : test.join(' ');
}

interface BindMount {
  /** Host path relative to the repository root, as written (`./infra/...`). */
  source: string;
  target: string;
}

/** Mounts of host paths (`./x:/y[:ro]` or the long syntax); named volumes are left out. */
function bindMountsOf(name: string): BindMount[] {
  return (service(name).volumes ?? []).flatMap((entry): BindMount[] => {
    if (typeof entry === 'object') {
      return entry.source !== undefined && /^\.{0,2}\//.test(entry.source)
        ? [{ source: entry.source, target: entry.target }]
        : [];
    }
    const [source = '', target = ''] = interpolate(entry).split(':');
    return /^\.{0,2}\//.test(source) ? [{ source, target }] : [];
  });
}

/** The host file or directory mounted at `containerPath` (or above it) in `name`. */
function hostPathOf(name: string, containerPath: string): string {
  for (const { source, target } of bindMountsOf(name)) {
    if (containerPath === target) return path.join(ROOT, source);
    if (containerPath.startsWith(`${target}/`))
      return path.join(ROOT, source, containerPath.slice(target.length));
  }
  throw new Error(`${name} mounts nothing at ${containerPath}`);
}

const readYaml = (file: string): unknown => parse(readFileSync(file, 'utf8'));

interface DockerfileStage {
  image: string;
  name: string | undefined;
}

/** FROM lines of a Dockerfile, with the ARG defaults declared before the first FROM substituted. */
function dockerfileStages(relative: string): DockerfileStage[] {
  const globalArgs = new Map<string, string>();
  const stages: DockerfileStage[] = [];
  for (const line of readRepoFile(relative).split('\n')) {
    const arg = /^\s*ARG\s+([A-Za-z_][A-Za-z0-9_]*)=(\S+)/i.exec(line);
    if (arg?.[1] && arg[2] && stages.length === 0) globalArgs.set(arg[1], arg[2].replace(/^["']|["']$/g, ''));
    const from = /^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from?.[1]) {
      const image = from[1].replace(
        /\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g,
        (_, key: string) => globalArgs.get(key) ?? '',
      );
      stages.push({ image, name: from[2]?.toLowerCase() });
    }
  }
  return stages;
}

// ---- the app services ----------------------------------------------------------------------------

const APP_SERVICES = [
  { name: 'order-service', short: 'order', port: 3000 },
  { name: 'payment-service', short: 'payment', port: 3001 },
  { name: 'inventory-service', short: 'inventory', port: 3002 },
  { name: 'email-service', short: 'email', port: 3003 },
  { name: 'analytics-service', short: 'analytics', port: 3004 },
] as const;

describe('docker-compose.yml', () => {
  it('follows the compose spec (no version key) and every service has an image or a build', () => {
    expect(compose.raw).not.toHaveProperty('version');
    for (const name of serviceNames) {
      const { image, build } = service(name);
      expect(image !== undefined || build !== undefined, `${name} has neither image nor build`).toBe(true);
    }
  });

  describe.each(APP_SERVICES)('$name', ({ name, short, port }) => {
    const env = envOf(name);

    it(`publishes host port ${port} onto the PORT it listens on`, () => {
      expect(env.PORT).toBe(String(port));
      expect(portsOf(name)).toEqual([expect.objectContaining({ hostPort: port, containerPort: port })]);
    });

    it('runs its own service from the shared image', () => {
      expect(env.SERVICE).toBe(short);
    });

    it('has a healthcheck on /health/ready', () => {
      expect(healthcheckCommand(name)).toContain('/health/ready');
    });

    it(`reaches its own database ${short}_service, Kafka and the tracing backend`, () => {
      for (const key of [
        'PORT',
        'DATABASE_URL',
        'KAFKA_BROKERS',
        'OTEL_SERVICE_NAME',
        'OTEL_TRACES_EXPORTER',
      ]) {
        expect(env[key], `${name}: ${key}`).toBeTruthy();
      }
      const database = new URL(env.DATABASE_URL ?? '');
      expect(database.protocol).toBe('postgresql:');
      expect(database.pathname).toBe(`/${short}_service`);
      expect(serviceNames).toContain(database.hostname);
      for (const broker of (env.KAFKA_BROKERS ?? '').split(',')) {
        expect(broker, `${name}: KAFKA_BROKERS entry`).toMatch(/^[a-z0-9.-]+:\d+$/);
        expect(serviceNames).toContain(broker.split(':')[0]);
      }
      expect(env.OTEL_SERVICE_NAME).toBe(name);
    });

    it('passes the start-up validation every service applies to its environment', () => {
      expect(() => loadConfig(baseConfigSchema({ port }), env)).not.toThrow();
    });

    it('starts after init completed and kafka/postgres are healthy', () => {
      expect(dependsOn(name)).toMatchObject({
        init: 'service_completed_successfully',
        kafka: 'service_healthy',
        postgres: 'service_healthy',
      });
    });
  });

  describe('console', () => {
    const env = envOf('console');
    const { environment } = service('console');

    it('publishes 127.0.0.1:3005 onto the PORT it listens on, on every interface of the container', () => {
      expect(env.PORT).toBe('3005');
      expect(env.HOST).toBe('0.0.0.0');
      expect(portsOf('console')).toEqual([
        expect.objectContaining({ hostIp: '127.0.0.1', hostPort: 3005, containerPort: 3005 }),
      ]);
    });

    it('runs from the services’ image, with their restart policy, and a healthcheck on /health', () => {
      const { name: first } = APP_SERVICES[0];
      expect(env.SERVICE).toBe('console');
      expect(service('console').image).toBe(service(first).image);
      expect(service('console').build).toEqual(service(first).build);
      expect(service('console').restart).toBe(service(first).restart);
      expect(healthcheckCommand('console')).toContain('/health');
    });

    it('starts once Kafka is healthy, and needs no database', () => {
      expect(dependsOn('console')).toEqual({ kafka: 'service_healthy' });
      expect(env.DATABASE_URL).toBeUndefined();
      for (const broker of (env.KAFKA_BROKERS ?? '').split(',')) {
        expect(serviceNames).toContain(broker.split(':')[0]);
      }
    });

    it.each(APP_SERVICES)('reaches $name at the PORT it listens on', ({ name, short }) => {
      expect(env[`${short.toUpperCase()}_SERVICE_URL`]).toBe(`http://${name}:${envOf(name).PORT}`);
    });

    it('calls the mail and trace UIs inside the network and links to their host ports', () => {
      const container = (url: string | undefined) => new URL(url ?? '');
      expect(env.MAIL_UI_KIND).toBe('mailpit');
      expect(service(new URL(env.MAIL_UI_URL ?? '').hostname).image).toMatch(/^axllent\/mailpit:/);
      const mail = container(env.MAIL_UI_URL);
      const mailPort = portsOf(mail.hostname).find((p) => p.containerPort === Number(mail.port));
      expect(mailPort, `${mail.hostname} publishes ${mail.port}`).toBeDefined();
      expect(container(env.MAIL_UI_PUBLIC_URL).port).toBe(String(mailPort?.hostPort));

      expect(env.TRACE_UI_KIND).toBe('jaeger');
      const traces = container(env.TRACE_UI_URL);
      expect(traces.hostname).toBe('jaeger');
      const tracePort = portsOf('jaeger').find((p) => p.containerPort === Number(traces.port));
      expect(tracePort, `jaeger publishes ${traces.port}`).toBeDefined();
      expect(container(env.TRACE_UI_PUBLIC_URL).port).toBe(String(tracePort?.hostPort));
    });

    it('takes CONSOLE_TOKEN from the caller’s environment only (no value in the file)', () => {
      expect(environment).toHaveProperty('CONSOLE_TOKEN', null);
    });
  });

  it('gives the email service an SMTP_URL to a healthy mail service', () => {
    const smtp = new URL(envOf('email-service').SMTP_URL ?? '');
    expect(smtp.protocol).toBe('smtp:');
    expect(dependsOn('email-service')[smtp.hostname]).toBe('service_healthy');
  });

  it('runs apache/kafka at the version pinned in infra/kafka/pom.xml', () => {
    const pomPath = 'infra/kafka/pom.xml';
    if (!existsSync(path.join(ROOT, pomPath))) {
      throw new Error(`${pomPath} is missing: it pins <kafka.version>, which the kafka image must match`);
    }
    const pinned = /<kafka\.version>\s*([^<\s]+)\s*<\/kafka\.version>/.exec(readRepoFile(pomPath))?.[1];
    expect(pinned, `${pomPath} has no <kafka.version>`).toBeTruthy();
    expect(service('kafka').image).toBe(`apache/kafka:${pinned}`);
  });

  it('depends only on services that exist, with a healthcheck where it waits for one', () => {
    for (const name of serviceNames) {
      for (const [target, condition] of Object.entries(dependsOn(name))) {
        expect(serviceNames, `${name} depends on unknown service ${target}`).toContain(target);
        if (condition === 'service_healthy') {
          expect(healthcheckCommand(target), `${name} waits for ${target} to be healthy`).not.toBe('');
        }
      }
    }
  });

  it('has no dependency cycle', () => {
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (name: string, trail: string[]): void => {
      if (state.get(name) === 'done') return;
      if (state.get(name) === 'visiting') {
        throw new Error(`depends_on cycle: ${[...trail.slice(trail.indexOf(name)), name].join(' -> ')}`);
      }
      state.set(name, 'visiting');
      for (const target of Object.keys(dependsOn(name))) visit(target, [...trail, name]);
      state.set(name, 'done');
    };
    for (const name of serviceNames) visit(name, []);
  });

  it('builds only targets that the Dockerfile defines', () => {
    for (const name of serviceNames) {
      const build = service(name).build;
      if (build === undefined || typeof build === 'string' || build.target === undefined) continue;
      const dockerfile = path.join(build.context ?? '.', build.dockerfile ?? 'Dockerfile');
      const targets = dockerfileStages(dockerfile).map((stage) => stage.name);
      expect(targets, `${name}: target "${build.target}" in ${dockerfile}`).toContain(
        build.target.toLowerCase(),
      );
    }
  });

  it('publishes no host port twice', () => {
    const owners = new Map<string, string>();
    for (const name of serviceNames) {
      for (const { hostPort, protocol } of portsOf(name)) {
        if (Number.isNaN(hostPort)) continue; // container port only: Docker picks a free host port
        const key = `${hostPort}/${protocol}`;
        expect(owners.get(key), `host port ${key} of ${name}`).toBeUndefined();
        owners.set(key, name);
      }
    }
  });
});

describe('Prometheus and Grafana', () => {
  it.each(['prometheus', 'grafana'])('%s runs a pinned image and mounts files that exist', (name) => {
    expect(service(name).image).toMatch(/^[a-z0-9./-]+:v?\d+\.\d+\.\d+$/);
    const mounts = bindMountsOf(name);
    expect(mounts.length).toBeGreaterThan(0);
    for (const { source } of mounts) {
      expect(existsSync(path.join(ROOT, source)), `${name} mounts ${source}`).toBe(true);
    }
  });

  it('publishes Prometheus on 9090 and Grafana on 3030 (3000 is order-service), loopback only', () => {
    expect(portsOf('prometheus')).toEqual([
      expect.objectContaining({ hostIp: '127.0.0.1', hostPort: 9090, containerPort: 9090 }),
    ]);
    expect(portsOf('grafana')).toEqual([
      expect.objectContaining({ hostIp: '127.0.0.1', hostPort: 3030, containerPort: 3000 }),
    ]);
  });

  it('scrapes GET /metrics of exactly the five services, at the ports compose gives them, every 5 s', () => {
    const config = z
      .object({
        global: z.object({ scrape_interval: z.string() }),
        scrape_configs: z.array(
          z.object({
            metrics_path: z.string().optional(),
            static_configs: z.array(z.object({ targets: z.array(z.string()) })),
          }),
        ),
      })
      .parse(readYaml(hostPathOf('prometheus', '/etc/prometheus/prometheus.yml')));
    expect(config.global.scrape_interval).toBe('5s');
    for (const job of config.scrape_configs) expect(job.metrics_path ?? '/metrics').toBe('/metrics');
    const targets = config.scrape_configs.flatMap((job) => job.static_configs.flatMap((c) => c.targets));
    expect(targets.sort()).toEqual(APP_SERVICES.map(({ name }) => `${name}:${envOf(name).PORT}`).sort());
  });

  it('provisions Grafana with the Prometheus service as data source and the dashboard directory', () => {
    const datasources = z
      .object({ datasources: z.array(z.object({ type: z.string(), uid: z.string(), url: z.string() })) })
      .parse(readYaml(hostPathOf('grafana', '/etc/grafana/provisioning/datasources/prometheus.yml')));
    const [prometheus] = datasources.datasources.filter((source) => source.type === 'prometheus');
    const url = new URL(prometheus?.url ?? '');
    expect(url.hostname).toBe('prometheus');
    expect(Number(url.port)).toBe(portsOf('prometheus')[0]?.containerPort);

    const providers = z
      .object({ providers: z.array(z.object({ options: z.object({ path: z.string() }) })) })
      .parse(readYaml(hostPathOf('grafana', '/etc/grafana/provisioning/dashboards/dashboards.yml')));
    for (const provider of providers.providers) {
      const dashboards = hostPathOf('grafana', provider.options.path);
      expect(existsSync(path.join(dashboards, 'order-pipeline.json')), dashboards).toBe(true);
    }
    // Every dashboard query names the data source by the uid provisioned here.
    const dashboard = readRepoFile('infra/grafana/dashboards/order-pipeline.json');
    for (const [, uid] of dashboard.matchAll(/"uid":\s*"([^"]+)"/g)) {
      if (uid !== 'order-pipeline') expect(uid).toBe(prometheus?.uid);
    }
  });

  it('lets anyone view the dashboard without logging in, read-only', () => {
    expect(envOf('grafana')).toMatchObject({
      GF_AUTH_ANONYMOUS_ENABLED: 'true',
      GF_AUTH_ANONYMOUS_ORG_ROLE: 'Viewer',
    });
    expect(dependsOn('grafana')).toMatchObject({ prometheus: 'service_healthy' });
  });
});

describe('Dockerfile', () => {
  describe('the runtime stage’s command', () => {
    const cmd = z
      .tuple([z.literal('sh'), z.literal('-c'), z.string()])
      .parse(
        JSON.parse(
          /^CMD (\[.*\])$/m.exec(readRepoFile('Dockerfile').split(' AS runtime')[1] ?? '')?.[1] ?? '""',
        ),
      );
    // A `node` that prints what it was asked to run.
    const bin = mkdtempSync(path.join(tmpdir(), 'fake-node-'));
    writeFileSync(path.join(bin, 'node'), '#!/bin/sh\necho "node $*"\n', { mode: 0o755 });
    afterAll(() => rmSync(bin, { recursive: true, force: true }));
    const run = (app: string) =>
      spawnSync(cmd[0], [cmd[1], cmd[2]], {
        encoding: 'utf8',
        env: { PATH: `${bin}:${process.env.PATH ?? ''}`, SERVICE: app },
      });

    it.each([
      ...APP_SERVICES.map(({ short }) => [short, `dist/apps/${short}-service/src/main.js`]),
      ['console', 'dist/apps/console/src/main.js'],
    ])('runs SERVICE=%s from %s', (app, entry) => {
      const result = run(app);
      expect(result.stdout.trim()).toBe(`node ${entry}`);
      expect(result.status).toBe(0);
    });

    it('refuses any other SERVICE with exit status 64', () => {
      const result = run('orders');
      expect(result.status).toBe(64);
      expect(result.stderr).toContain(
        "SERVICE must be one of order, payment, inventory, email, analytics, console (got 'orders')",
      );
    });
  });

  it('starts from a node:24 image, the version in .nvmrc', () => {
    const [first] = dockerfileStages('Dockerfile');
    const nvmrc = readRepoFile('.nvmrc').trim().replace(/^v/, '');
    expect(first?.image).toMatch(/^node:24[.-]/);
    expect(first?.image).toMatch(new RegExp(`^node:${nvmrc.replace(/\./g, '\\.')}-`));
  });

  it('applies patches/ after every npm ci (--ignore-scripts skips the postinstall)', () => {
    const stagesWithInstall = readRepoFile('Dockerfile')
      .split(/^FROM /m)
      .filter((stage) => stage.includes('npm ci'));
    expect(stagesWithInstall).toHaveLength(2);
    for (const stage of stagesWithInstall) {
      const copyAt = stage.indexOf('COPY --chown=node:node patches ./patches');
      expect(copyAt).toBeGreaterThan(-1);
      expect(copyAt).toBeLessThan(stage.indexOf('npm ci'));
      expect(stage).toMatch(/npm ci [^\n]*&& npm run postinstall/);
    }
  });
});
