import { deadLetterPosition, type DeadLetterRecord } from './dead-letter-record';

/**
 * What a dead letter is a letter of: one consumer group's failure of one original record. A crash
 * between the dead-letter produce and the offset commit makes the consumer read the original
 * again and dead-letter it again: two records, one incident. `undefined` for a record that does
 * not name its original completely (a relay letter, a record some other client wrote): such a
 * record is never merged with another.
 */
export function incidentOf(record: DeadLetterRecord): string | undefined {
  const { consumerGroup, originalTopic, originalPartition, originalOffset } = record;
  if (originalTopic === undefined || originalPartition === undefined || originalOffset === undefined)
    return undefined;
  if (originalPartition < 0 || !/^\d{1,19}$/.test(originalOffset)) return undefined;
  // JSON: no separator a header value could contain can make two incidents look alike.
  return JSON.stringify([consumerGroup ?? null, originalTopic, originalPartition, originalOffset]);
}

/** The records of one incident. */
export interface DeadLetterCopies {
  /** The copy shown and replayed: the first of `copies`. */
  readonly first: DeadLetterRecord;
  /** Every copy, in dead-letter order (partition, then offset): one unless it was dead-lettered again. */
  readonly copies: readonly DeadLetterRecord[];
}

const byPosition = (a: DeadLetterRecord, b: DeadLetterRecord): number =>
  a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset));

/**
 * Groups copies of one incident. The groups come in the order of each incident's first
 * appearance in `records` (a page newest first stays newest first); inside a group, copies are
 * in dead-letter order, so `first` is the copy written first wherever the copies share a
 * partition (they do when the original had a key: a dead letter keeps it).
 */
export function groupCopies(records: readonly DeadLetterRecord[]): DeadLetterCopies[] {
  const groups: DeadLetterRecord[][] = [];
  const byIncident = new Map<string, DeadLetterRecord[]>();
  for (const record of records) {
    const incident = incidentOf(record);
    const known = incident === undefined ? undefined : byIncident.get(incident);
    if (known !== undefined) {
      known.push(record);
      continue;
    }
    const group = [record];
    groups.push(group);
    if (incident !== undefined) byIncident.set(incident, group);
  }
  return groups.map((group) => {
    const copies = group.length === 1 ? group : [...group].sort(byPosition);
    return { first: copies[0]!, copies };
  });
}

/**
 * Remembers the incidents a replay has met, across as many batches as it takes (the console's
 * redrive of a whole topic goes a page at a time): only the position of each incident's first
 * copy is kept, never a record.
 */
export class FirstCopies {
  private readonly firsts = new Map<string, string>();

  /** The position of an earlier copy of `record`'s incident; `undefined` when `record` comes first. */
  earlierCopyOf(record: DeadLetterRecord): string | undefined {
    const incident = incidentOf(record);
    if (incident === undefined) return undefined;
    const first = this.firsts.get(incident);
    if (first === undefined) this.firsts.set(incident, deadLetterPosition(record));
    return first;
  }
}
