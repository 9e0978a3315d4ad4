// Broker loss's direct check, event by event: every outbox row the broker acknowledged is in the
// log, and was seen by every service that consumes its type. The relay deletes a row only once
// the broker acknowledged it, so the suite keeps its own copy of each row written: a trigger on
// every service's outbox (installed in the test databases only) journals the row's event id,
// topic and type. After the drain, journalled rows no longer in the outbox are the acknowledged
// ones; the log is read from the beginning by a fresh group, and the inboxes are the consumers'
// own record of what they processed.
import { EventHeaders } from '@pipeline/contracts';
import { readTopic } from '../../support/kafka';
import type { ServiceName } from '../../support/service-harness';
import { SERVICES, type FaultStack } from './fault-stack';
import { rows } from './pipeline-audit';

const JOURNAL = `
  CREATE TABLE IF NOT EXISTS fault_outbox_journal (
    event_id uuid PRIMARY KEY,
    topic text NOT NULL,
    type text NOT NULL
  );
  CREATE OR REPLACE FUNCTION fault_outbox_journal() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO fault_outbox_journal (event_id, topic, type)
      VALUES (NEW.event_id, NEW.topic, NEW.type) ON CONFLICT DO NOTHING;
    RETURN NEW;
  END $$;
  DROP TRIGGER IF EXISTS fault_outbox_journal ON outbox;
  CREATE TRIGGER fault_outbox_journal AFTER INSERT ON outbox
    FOR EACH ROW EXECUTE FUNCTION fault_outbox_journal();`;

/** Starts journalling every outbox row each service writes from now on. */
export async function journalOutboxes(stack: FaultStack): Promise<void> {
  await Promise.all(
    SERVICES.map((name) => stack.database(name).withClient((client) => client.query(JOURNAL))),
  );
}

export interface AcknowledgedEvents {
  /** Journalled rows the relay deleted, i.e. the broker acknowledged. */
  readonly acknowledged: number;
  /** Acknowledged event ids the log does not hold: the broker lost them. */
  readonly missingFromLog: readonly string[];
  /** `<service> never processed <type> <event id>`, for events in the log. */
  readonly unseen: readonly string[];
}

interface JournalRow {
  readonly event_id: string;
  readonly topic: string;
  readonly type: string;
}

/**
 * Compares the acknowledged rows with the log and with the inboxes. A service counts as a consumer
 * of a type when its inbox holds at least one event of that type; it must then hold every one that
 * is in the log (a type a service lost entirely shows in the per-order audit instead).
 */
export async function compareAcknowledged(stack: FaultStack): Promise<AcknowledgedEvents> {
  const acknowledged = (
    await Promise.all(
      SERVICES.map((name) =>
        rows<JournalRow>(
          stack,
          name,
          `SELECT j.event_id, j.topic, j.type FROM fault_outbox_journal j
            WHERE NOT EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = j.event_id)`,
        ),
      ),
    )
  ).flat();

  const logs = await Promise.all(
    [...new Set(acknowledged.map((row) => row.topic))].map((topic) =>
      readTopic(stack.kafka, stack.prefix + topic, 60_000),
    ),
  );
  const inLog = new Set(logs.flat().flatMap((record) => record.headers?.[EventHeaders.id]?.toString() ?? []));

  const inboxes = new Map(
    await Promise.all(
      SERVICES.map(
        async (name) =>
          [
            name,
            new Set(
              (await rows<{ event_id: string }>(stack, name, 'SELECT event_id FROM inbox')).map(
                (row) => row.event_id,
              ),
            ),
          ] as const,
      ),
    ),
  );

  // type → the services whose inbox holds an event of that type.
  const consumersOf = new Map<string, Set<ServiceName>>();
  for (const row of acknowledged)
    for (const [name, inbox] of inboxes)
      if (inbox.has(row.event_id))
        consumersOf.set(row.type, (consumersOf.get(row.type) ?? new Set()).add(name));

  const missingFromLog: string[] = [];
  const unseen: string[] = [];
  for (const row of acknowledged) {
    if (!inLog.has(row.event_id)) {
      missingFromLog.push(`${row.type} ${row.event_id}`);
      continue;
    }
    for (const name of consumersOf.get(row.type) ?? [])
      if (!inboxes.get(name)?.has(row.event_id))
        unseen.push(`${name} never processed ${row.type} ${row.event_id}`);
  }
  return { acknowledged: acknowledged.length, missingFromLog, unseen };
}
