import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes';
import { FaultStack, SERVICES } from './support/fault-stack';
import { runFault, expectNothingLostOrDuplicated } from './support/fault-run';
import { startOwnPostgres, type OwnPostgres } from './support/own-postgres';

const ready = async (url: string | undefined): Promise<boolean> => {
  if (url === undefined) return false;
  try {
    return (await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(5_000) })).ok;
  } catch {
    return false;
  }
};

// Every service's database lives on a Postgres of the suite's own, which stops (fast shutdown:
// every connection cut) and starts again under load.
describe('fault: Postgres restart under load', () => {
  let postgres: OwnPostgres;
  let stack: FaultStack;

  beforeAll(async () => {
    postgres = await startOwnPostgres();
    stack = await FaultStack.start('postgres', { createDatabase: (label) => postgres.createDatabase(label) });
  });
  afterAll(async () => {
    await stack?.stop();
    await postgres?.destroy();
  });

  it('services report not-ready, reconnect, the relay resumes: nothing lost, no effect twice', async () => {
    const notReady = new Set<string>();
    const result = await runFault(stack, {
      fault: 'postgres restart',
      inject: async () => {
        await postgres.stop();
        await eventually(
          async () => {
            for (const name of SERVICES) if (!(await ready(stack.url(name)))) notReady.add(name);
            return notReady.size === SERVICES.length ? true : undefined;
          },
          { timeoutMs: 60_000, what: 'every service not ready' },
        );
        await postgres.start();
      },
    });
    expect([...notReady].sort()).toEqual([...SERVICES].sort());
    for (const name of SERVICES) expect(await ready(stack.url(name))).toBe(true);
    // Every effect exactly once, emails included: an email the SMTP server accepted while
    // Postgres went down, before its sent_emails row committed, is recorded on the redelivery,
    // not sent again (SendOnce remembers it in the process).
    expectNothingLostOrDuplicated(result);
  }, 600_000);
});
