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

  it('services report not-ready, reconnect, the relay resumes: nothing lost, no database effect twice', async () => {
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
    // The one duplicate this fault can cause, and the only one tolerated: an email the SMTP
    // server accepted while Postgres went down before email-service's transaction committed is
    // sent again after the restart, with the same Message-ID (docs/reliability.md, Known limits).
    // The table still counts it as duplicated; every database effect must be exactly once.
    const resent = result.problems.filter((problem) => /sent \d+ emails \(1 Message-IDs\)$/.test(problem));
    expectNothingLostOrDuplicated(result, resent);
  }, 600_000);
});
