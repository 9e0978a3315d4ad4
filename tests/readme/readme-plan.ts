// How tests/readme/readme.spec.ts runs each command of README.md (tests/readme/readme-commands.ts
// reads them): keyed by the command as the README writes it, so a command added to the README
// fails the test until it is here, and an entry whose command left the README fails too. Each
// entry runs the README's own text in the fresh clone, with the machine's Node first on PATH;
// where that text cannot run here, `how` says why and the check runs what it can of it.
import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parse } from 'yaml';
import { eventually } from '../support/processes';
import { Terminal, type Finished } from './newcomer';

export interface ReadmeRun {
  readonly clone: string;
  readonly env: NodeJS.ProcessEnv;
  /** `npm run stack`, started once for the whole walk-through. */
  readonly stack: Terminal;
  /** The Node version the project asks for (.nvmrc), e.g. `v24.22.3`. */
  readonly projectNode: string;
  /** What one step leaves for the next: the walk-through's order. */
  readonly order: { id?: string; createdAt?: string };
}

export interface PlanEntry {
  /** As written, with what is substituted and why; or why it is not run, and what is checked. */
  readonly how: string;
  readonly timeoutMs?: number;
  readonly check: (run: ReadmeRun, command: string) => Promise<void> | void;
}

/** Runs `command` in the clone; fails with its output unless it exits 0. */
export async function sh(run: ReadmeRun, command: string, timeoutMs = 60_000): Promise<string> {
  const finished: Finished = await Terminal.run(command, run.clone, run.env, timeoutMs);
  if (finished.code !== 0)
    throw new Error(`\`${command}\` exited with ${finished.code}:\n${finished.output.slice(-4000)}`);
  return finished.output;
}

/** The JSON an npm script printed after npm's own `> name` header lines. */
const jsonAfterNpm = (output: string): unknown => JSON.parse(output.slice(output.search(/^[[{]/m)));

/** The arguments after `--` of an `npm run <script> -- ...` line. */
const argsOf = (command: string): string => command.split(' -- ')[1] ?? '';

/** The program of an npm script, run by the project's Node with the README's arguments. */
const program = (entry: string, args: string) => `bash scripts/with-node.sh node ${entry} ${args}`;

const WALK_THROUGH_TIMELINE = ['order.placed', 'payment.authorized', 'stock.reserved', 'order.confirmed'];

interface Order {
  orderId: string;
  status: string;
  createdAt: string;
  timeline: { type: string }[];
}

function orderOf(run: ReadmeRun): string {
  if (run.order.id === undefined) throw new Error('the walk-through placed no order (its first step failed)');
  return run.order.id;
}

/** The script an `npm run` line names goes through the wrapper to something that exists. */
function resolvesThroughTheWrapper(run: ReadmeRun, command: string): void {
  const name = /^npm run (\S+)/.exec(command)?.[1] ?? '';
  const { scripts } = JSON.parse(readFileSync(join(run.clone, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const script = scripts[name];
  expect(script, `package.json has no script "${name}"`).toBeDefined();
  const target = /^bash scripts\/with-node\.sh (\S+)/.exec(script ?? '')?.[1];
  expect(target, `"${name}": ${script}`).toMatch(/\.sh$/);
  expect(() => readFileSync(join(run.clone, target!))).not.toThrow();
}

export const README_PLAN: Readonly<Record<string, PlanEntry>> = {
  'npm run stack': {
    how: 'run as written, once (readme.spec.ts), for the whole walk-through; its Ctrl-C is the last test',
    check: async (run) => {
      await run.stack.waitFor(/The pipeline is up/, 1_000);
      for (const port of [3000, 3001, 3002, 3003, 3004]) {
        expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status, `port ${port}`).toBe(200);
      }
      expect((await fetch('http://127.0.0.1:3005/health')).status).toBe(200);
      // Every service runs on the project's Node, whatever Node the newcomer has first on PATH.
      for (const name of ['order', 'payment', 'inventory', 'email', 'analytics', 'console']) {
        const pid = readFileSync(join(run.clone, '.run/services', `${name}.pid`), 'utf8').trim();
        const node = readlinkSync(`/proc/${pid}/exe`);
        expect((await sh(run, `${node} --version`)).trim(), `${name} runs ${node}`).toBe(run.projectNode);
      }
    },
  },
  'npm test': {
    // It cannot run inside the suite it starts (scripts/test.sh runs every spec, this one too);
    // CI runs it on a fresh clone (.ci/run). What is left to check is that it starts on the
    // project's Node from a newcomer's PATH: the same resolution, run for real.
    how: 'not run: it is the run this test belongs to; checked: it resolves through scripts/with-node.sh, which gives the project Node',
    check: async (run, command) => {
      resolvesThroughTheWrapper(run, 'npm run test');
      expect(command).toBe('npm test');
      expect((await sh(run, 'bash scripts/with-node.sh node --version')).trim()).toBe(run.projectNode);
    },
  },
  'docker compose up --build': {
    how: 'not run: no Docker engine here; tests/infra/compose.spec.ts and tests/readme/compose-names.spec.ts check the file',
    check: (run) => {
      const compose = parse(readFileSync(join(run.clone, 'docker-compose.yml'), 'utf8')) as {
        services?: Record<string, unknown>;
      };
      expect(Object.keys(compose.services ?? {})).toEqual(expect.arrayContaining(['init', 'order-service']));
    },
  },
  [`curl -s -X POST http://127.0.0.1:3000/orders -H 'content-type: application/json' -H 'Idempotency-Key: demo-1' -d '{"customerId":"alice","customerEmail":"alice@example.com","items":[{"sku":"SKU-APPLE","quantity":2,"unitPrice":"1.25"}]}'`]:
    {
      // A second run against the same databases would get the first run's order back (200, as
      // the README says), whose email may be gone since: a key of this run's own.
      how: 'run with an Idempotency-Key of its own instead of demo-1',
      check: async (run, command) => {
        const output = await sh(run, command.replace('demo-1', `demo-${randomUUID()}`));
        const placed = JSON.parse(output) as { orderId: string; status: string };
        expect(placed.status).toBe('PENDING');
        expect(placed.orderId).toMatch(/^[0-9a-f-]{36}$/);
        run.order.id = placed.orderId;
      },
    },
  'curl -s http://127.0.0.1:3000/orders/<id>': {
    how: 'run with the id the first step got, until the order is confirmed',
    check: async (run, command) => {
      const order = await eventually(
        async () => {
          const found = JSON.parse(await sh(run, command.replace('<id>', orderOf(run)))) as Order;
          return found.status === 'CONFIRMED' ? found : undefined;
        },
        { timeoutMs: 30_000, what: 'the order CONFIRMED' },
      );
      expect(order.timeline.map((entry) => entry.type)).toEqual(WALK_THROUGH_TIMELINE);
      run.order.createdAt = order.createdAt;
    },
  },
  'curl -s http://127.0.0.1:1080/api/email': {
    how: 'run as written, until the confirmation email is there',
    check: async (run, command) => {
      const id = orderOf(run);
      await eventually(
        async () => {
          const emails = JSON.parse(await sh(run, command)) as {
            subject: string;
            to: { address: string }[];
          }[];
          return emails.find(
            (email) =>
              email.subject === `Your order ${id} is confirmed` &&
              email.to[0]?.address === 'alice@example.com',
          );
        },
        { timeoutMs: 30_000, what: `the confirmation email of ${id}` },
      );
    },
  },
  'curl -s http://127.0.0.1:3004/analytics/customers/alice/windows': {
    how: "run as written, until the order's window counts it",
    check: async (run, command) => {
      const at = Date.parse(run.order.createdAt ?? '');
      await eventually(
        async () => {
          const { customerId, windows } = JSON.parse(await sh(run, command)) as {
            customerId: string;
            windows: { windowStart: string; windowEnd: string; confirmed: number }[];
          };
          expect(customerId).toBe('alice');
          return windows.find(
            (w) => Date.parse(w.windowStart) <= at && at < Date.parse(w.windowEnd) && w.confirmed >= 1,
          );
        },
        { timeoutMs: 30_000, what: "alice's window of the walk-through's order" },
      );
    },
  },
  'curl -s http://127.0.0.1:3002/inventory/SKU-APPLE': {
    how: 'run as written',
    check: async (run, command) => {
      const level = JSON.parse(await sh(run, command)) as {
        sku: string;
        available: number;
        reserved: number;
      };
      expect(level.sku).toBe('SKU-APPLE');
      expect(typeof level.available).toBe('number');
      expect(level.reserved).toBeGreaterThanOrEqual(2);
    },
  },
  'npm run kafka:consume -- --topic inventory.stock --from-beginning --property print.key=true': {
    how: "run as written, until it prints SKU-APPLE's level; then Ctrl-C",
    timeoutMs: 90_000,
    check: async (run, command) => {
      const consumer = Terminal.start(command, run.clone, run.env);
      try {
        await consumer.waitFor(/^SKU-APPLE\t\{"sku": ?"SKU-APPLE".*\}$/m, 60_000);
      } finally {
        await consumer.interrupt(20_000);
      }
    },
  },
  'npm run stack -- --instances payment=2': {
    how: "not run: a second stack costs a minute of CPU; checked: the stack's own parser accepts its arguments",
    check: async (run, command) => {
      const usage = await sh(run, program('dist/tools/stack/main.js', `${argsOf(command)} --help`));
      expect(usage).toContain('Usage: npm run stack');
    },
  },
  'npm run loadgen -- --rate 30 --duration 120 --drain-seconds 60': {
    how: "not run: two minutes of load for the two-instance experiment; checked: loadgen's parser knows its options",
    check: async (run, command) => {
      expect(await sh(run, program('dist/tools/loadgen/main.js', `${argsOf(command)} --help`))).toContain(
        'Usage: loadgen',
      );
    },
  },
  'kill -9 "$(cat .run/services/payment-2.pid)"': {
    how: "not run: the stack here has one payment-service; checked: the first instance's pid file names the live process",
    check: (run, command) => {
      const pidFile = /cat ([^")]+)/.exec(command)?.[1] ?? '';
      const pid = Number(readFileSync(join(run.clone, pidFile.replace('payment-2', 'payment')), 'utf8'));
      expect(() => process.kill(pid, 0)).not.toThrow();
    },
  },
  'npm run nx -- g @pipeline/tools:service shipping --consumes order.confirmed --produces shipment.scheduled':
    {
      how: 'run with --dry-run, as its comment offers: it writes nothing',
      timeoutMs: 90_000,
      check: async (run, command) => {
        const output = await sh(run, `${command} --dry-run`, 80_000);
        expect(output).toContain('CREATE apps/shipping-service/src/schedule-shipment/');
        expect(output).toContain('"dryRun" flag means no changes were made');
        expect((await sh(run, 'git status --porcelain --untracked-files=all')).trim()).toBe(
          '?? node_modules',
        );
      },
    },
  [`curl -si -X POST http://127.0.0.1:3000/orders -H 'content-type: application/json' -d '{"customerId":"alice","customerEmail":"alice@example.com","items":[{"sku":"SKU-APPLE","quantity":1,"unitPrice":"1.25"}]}' | grep -i traceresponse`]:
    {
      how: 'run as written; the trace it names reaches Zipkin',
      check: async (run, command) => {
        const traceId = /^traceresponse: 00-([0-9a-f]{32})-[0-9a-f]{16}-01\s*$/im.exec(
          await sh(run, command),
        )?.[1];
        expect(traceId).toBeDefined();
        await eventually(
          async () => {
            const response = await fetch(`http://127.0.0.1:9411/api/v2/trace/${traceId}`);
            return response.ok && ((await response.json()) as unknown[]).length > 0 ? true : undefined;
          },
          { timeoutMs: 30_000, what: `trace ${traceId} in Zipkin` },
        );
      },
    },
  'npm run dlt -- list --service payment': {
    how: 'run as written',
    check: async (run, command) => {
      expect(await sh(run, command)).toMatch(/^payment\.dead-letter: /m);
    },
  },
  'npm run dlt -- list --service payment --json': {
    how: 'run as written',
    check: async (run, command) => {
      const report = jsonAfterNpm(await sh(run, command)) as { records?: unknown };
      expect(Array.isArray(report.records)).toBe(true);
    },
  },
  'npm run dlt -- replay --service payment --dry-run': {
    how: 'run as written',
    check: async (run, command) => {
      expect(await sh(run, command)).toMatch(/^dry run: would replay \d+ records?$/m);
    },
  },
  'npm run dlt -- replay --service payment --event-id <ce_id>': {
    how: 'run with an event id no record has',
    check: async (run, command) => {
      const id = randomUUID();
      expect(await sh(run, command.replace('<ce_id>', id))).toContain(`not found: ce_id ${id}`);
    },
  },
  'npm run dlt -- replay --service payment --original-topic orders --since 2026-11-30T10:00:00Z': {
    how: "run with --dry-run: on a developer's machine these are real dead letters",
    check: async (run, command) => {
      expect(await sh(run, `${command} --dry-run`)).toMatch(/^dry run: would replay \d+ records?$/m);
    },
  },
  'npm run build && npm run loadgen -- --rate 20 --duration 30 --check-emails': {
    how: 'run with --duration 5: a short run',
    timeoutMs: 120_000,
    check: async (run, command) => {
      const output = await sh(run, command.replace('--duration 30', '--duration 5'), 110_000);
      expect(output).toMatch(/offered \d+, placed \(202\) \d+/);
      expect(output).toMatch(/LOST 0 +DUPLICATED 0/);
      expect(output).toMatch(/emails: \d+ orders checked, missing 0, duplicated 0/);
    },
  },
  'npm run loadgen -- --help': {
    how: 'run as written',
    check: async (run, command) => {
      expect(await sh(run, command)).toContain('Usage: loadgen');
    },
  },
  'npm run bench': {
    how: 'not run: 10-15 minutes; checked: its script resolves through scripts/with-node.sh',
    check: (run, command) => resolvesThroughTheWrapper(run, command),
  },
  'npm run bench -- --help': {
    how: 'run as written (it builds first, as every run of the script does)',
    timeoutMs: 120_000,
    check: async (run, command) => {
      expect(await sh(run, command, 110_000)).toContain('Usage');
    },
  },
  'npm run soak': {
    how: "not run: 30 minutes; checked: the soak's own check of its arguments (soak.sh runs it first)",
    check: async (run, command) => {
      await sh(run, program('dist/tools/soak/main.js', `--check-args ${argsOf(command)}`));
    },
  },
  'npm run soak -- --rate 150': {
    how: "not run: 30 minutes; checked: the soak's own check of its arguments (soak.sh runs it first)",
    check: async (run, command) => {
      await sh(run, program('dist/tools/soak/main.js', `--check-args ${argsOf(command)}`));
    },
  },
  'npm run soak -- --help': {
    how: 'run as written (it builds first, as every run of the script does)',
    timeoutMs: 120_000,
    check: async (run, command) => {
      expect(await sh(run, command, 110_000)).toContain('Usage');
    },
  },
};
