import { parseArgs } from 'node:util';
import { ServiceNames, type ServiceName } from '@pipeline/contracts';

export class UsageError extends Error {}

/** Instances of one service at most: their ports are base + 100 * (i - 1), 3001..3301 for payment. */
export const MaxInstances = 4;

export interface StackArgs {
  readonly instances: Readonly<Record<ServiceName, number>>;
  readonly console: boolean;
  readonly help: boolean;
}

export const STACK_USAGE = `Usage: npm run stack -- [--instances <service>=<n>[,...]]... [--no-console]

  --instances <list>  instances of a service in its consumer group, e.g. payment=2 or
                      payment=2,inventory=3 (the flag may be repeated); 1 to ${MaxInstances} each, default 1.
                      Instance i listens on the service's port + 100 * (i - 1): payment-2 on 3101.
  --no-console        do not start the operations console (port 3005)
  -h, --help          print this help

A service that exits unexpectedly is restarted with a backoff; one stopped cleanly (kill <pid>)
stays down until kill -USR2 $(cat .run/stack.pid). Ctrl-C stops everything. docs/local-stack.md.`;

/** `payment=2,order=1` (possibly several such values) -> instances per service, 1 by default. */
export function parseInstances(values: readonly string[]): Record<ServiceName, number> {
  const instances = Object.fromEntries(ServiceNames.map((service) => [service, 1])) as Record<
    ServiceName,
    number
  >;
  const given = new Set<string>();
  for (const part of values.flatMap((value) => value.split(','))) {
    const match = /^\s*([a-z-]+?)(?:-service)?\s*=\s*(\S+)\s*$/.exec(part);
    if (match === null)
      throw new UsageError(`--instances "${part}": expected <service>=<count>, e.g. payment=2`);
    const [, name = '', count = ''] = match;
    if (name === 'console') throw new UsageError('--instances: the console runs once (or not: --no-console)');
    if (!isServiceName(name))
      throw new UsageError(
        `--instances ${part.trim()}: unknown service "${name}" (one of ${ServiceNames.join(', ')})`,
      );
    if (given.has(name)) throw new UsageError(`--instances: ${name} is given twice`);
    given.add(name);
    const value = Number(count);
    if (!/^\d+$/.test(count) || value < 1 || value > MaxInstances)
      throw new UsageError(
        `--instances ${part.trim()}: the count must be a whole number from 1 to ${MaxInstances}`,
      );
    instances[name] = value;
  }
  return instances;
}

export function parseStackArgs(argv: readonly string[]): StackArgs {
  let values: { instances?: string[]; 'no-console'?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        instances: { type: 'string', multiple: true },
        'no-console': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    // parseArgs's TypeErrors name the option ("Unknown option '--instance'"): a usage error.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  return {
    instances: parseInstances(values.instances ?? []),
    console: values['no-console'] !== true,
    help: values.help === true,
  };
}

const isServiceName = (name: string): name is ServiceName =>
  (ServiceNames as readonly string[]).includes(name);
