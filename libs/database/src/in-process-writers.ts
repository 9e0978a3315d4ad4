import type pg from 'pg';

/**
 * The backend pids of this process's service pool. Its writers wake their outbox relay in process
 * right after COMMIT (`outboxCommitted`), so the NOTIFY the same commit sends (the outbox trigger)
 * would only make the relay read the outbox a second time: the relay skips a NOTIFY from one of
 * these sessions, and still wakes on every other (another instance, a script, psql).
 *
 * A pid the server reuses for another process's session after ours closed without the pool
 * noticing would only delay that session's rows to the relay's next poll, never lose them.
 */
const writers = new Set<number>();

/** Registers `pool`'s sessions as it opens them and forgets them as it closes them. */
export function trackInProcessWriters(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const pid = backendPid(client);
    if (pid !== undefined) writers.add(pid);
  });
  pool.on('remove', (client) => {
    const pid = backendPid(client);
    if (pid !== undefined) writers.delete(pid);
  });
}

/** Whether the session with backend pid `pid` belongs to a pool of this process that wakes in process. */
export const isInProcessWriter = (pid: number): boolean => writers.has(pid);

// node-postgres keeps the pid from BackendKeyData, before 'connect'; its type declarations omit it.
function backendPid(client: pg.PoolClient): number | undefined {
  const pid = (client as { processID?: unknown }).processID;
  return typeof pid === 'number' ? pid : undefined;
}
