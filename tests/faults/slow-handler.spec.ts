// Fault 6: a handler slower than the session timeout. The consumer heartbeats on a timer while a
// batch runs, so the slow member is not evicted; when a second member joins in the middle of a
// slow handler, the group rebalances, the slow transaction still commits, partitions move, and
// the inbox keeps every effect single. Runs on the messaging fixture service (a real consumer
// process, Kafka and Postgres): its handler can be made slow without touching a real service.
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertConsumerMainBuilt,
  startConsumerProcess,
  terminate,
  type ConsumerProcess,
} from '../messaging/fixtures/consumer-process';
import { createTestBed, type TestBed } from '../messaging/fixtures/test-bed';
import { testEventMessage } from '../messaging/fixtures/test-events';
import { eventually } from '../support/processes';
import { recordFaultRow } from './support/fault-report';
import { groupMembers } from './support/group-members';

const PARTITIONS = 4;
const RECORDS = 8;
/** The broker's minimum session timeout, and a handler that takes longer than it. */
const SESSION_TIMEOUT_MS = 6_000;
const SLOW_MS = 8_000;

let bed: TestBed;
const processes: ConsumerProcess[] = [];

beforeAll(() => assertConsumerMainBuilt());
afterAll(async () => {
  for (const running of processes.splice(0)) running.child.kill('SIGKILL');
  await bed?.close();
});

/** The member ids of the group once it is stable (none while it rebalances). */
async function stableMembers(): Promise<string[]> {
  const { state, members } = await groupMembers(bed.admin, bed.groupId);
  return state === 'Stable' ? members.map((member) => member.memberId) : [];
}

describe('fault: a handler slower than the session timeout', () => {
  it('keeps the slow member in its group; a member joining mid-handler takes partitions; no effect twice', async () => {
    bed = await createTestBed('fault_slow_handler', PARTITIONS);
    const messages = Array.from({ length: RECORDS }, (_, seq) => testEventMessage({ key: `k${seq}`, seq }));
    const slowEnv = {
      SLOW_MS: String(SLOW_MS),
      SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
      MAX_EVENTS_PER_TRANSACTION: '1',
    };
    const slow = await startConsumerProcess(bed, slowEnv);
    processes.push(slow);
    const [slowMember] = await eventually(
      async () => {
        const members = await stableMembers();
        return members.length === 1 ? members : undefined;
      },
      { what: 'the slow member in a stable group', timeoutMs: 30_000 },
    );
    await bed.send(messages);

    // Two handler calls in a row, each longer than the session timeout: the member stays.
    await eventually(async () => ((await bed.effectCounts()).size >= 2 ? true : undefined), {
      what: 'two slow handlers committed',
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    // The same member: not evicted and rejoined under a new id.
    expect(await stableMembers()).toEqual([slowMember]);

    // A second member joins while the first is inside a slow handler: a rebalance.
    const joinedAt = performance.now();
    const fast = await startConsumerProcess(bed, { SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS) });
    processes.push(fast);
    await eventually(async () => ((await stableMembers()).length === 2 ? true : undefined), {
      what: 'both members in a stable group',
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    await eventually(
      async () => {
        const committed = await bed.committed();
        const total = [...committed.values()].reduce((sum, offset) => sum + Math.max(0, offset), 0);
        return total === RECORDS ? true : undefined;
      },
      { what: 'every record committed', timeoutMs: 180_000, intervalMs: 500 },
    );
    const recoverySeconds = Math.round((performance.now() - joinedAt) / 100) / 10;

    const effects = await bed.effectCounts();
    const counts = messages.map((message) => effects.get(message.id) ?? 0);
    const lost = counts.filter((count) => count === 0).length;
    const duplicated = counts.filter((count) => count > 1).length;
    expect(await terminate(fast)).toBe('SIGTERM');
    expect(await terminate(slow)).toBe('SIGTERM');
    const fastReport = fast.shutdownReport() as { processed: number };
    const slowReport = slow.shutdownReport() as { processed: number; deduplicated: number };
    await recordFaultRow({
      fault: 'slow handler (8 s > 6 s session timeout), member joins',
      placed: RECORDS,
      lost,
      duplicated,
      recoverySeconds,
      notes: `records, not orders; processed by the slow member ${slowReport.processed}, by the new one ${fastReport.processed}`,
    });
    expect({ lost, duplicated }).toEqual({ lost: 0, duplicated: 0 });
    // The rebalance moved partitions: the new member did part of the work.
    expect(fastReport.processed).toBeGreaterThan(0);
    expect(slowReport.processed + fastReport.processed).toBe(RECORDS);
    // Its waits add up to more than the default 60 s on a busy machine (CI runs it beside others).
  }, 360_000);
});
