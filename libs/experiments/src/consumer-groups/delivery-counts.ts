import type { Evidence } from '../experiment';

/** One record handed to a member's eachMessage. */
export interface Delivery {
  readonly key: string;
  readonly partition: number;
  readonly member: string;
  /** The stage (2, 3 or 5 members) in which it was consumed. */
  readonly stage: string;
}

export interface DeliveryCounts {
  readonly published: number;
  readonly consumed: number;
  readonly distinct: number;
  /** Keys consumed more than once. */
  readonly duplicates: readonly string[];
  /** Keys published but never consumed. */
  readonly missing: readonly string[];
  /** Keys consumed but never published (another run's records: must never happen). */
  readonly unexpected: readonly string[];
}

/** Counts per record key: every published key consumed exactly once is the criterion. */
export function countDeliveries(
  published: readonly string[],
  deliveries: readonly Delivery[],
): DeliveryCounts {
  const times = new Map<string, number>();
  for (const delivery of deliveries) times.set(delivery.key, (times.get(delivery.key) ?? 0) + 1);
  const sent = new Set(published);
  return {
    published: published.length,
    consumed: deliveries.length,
    distinct: times.size,
    duplicates: [...times].filter(([, count]) => count > 1).map(([key]) => key),
    missing: published.filter((key) => !times.has(key)),
    unexpected: [...times.keys()].filter((key) => !sent.has(key)),
  };
}

export const exactlyOnce = (counts: DeliveryCounts): boolean =>
  counts.consumed === counts.published &&
  counts.duplicates.length === 0 &&
  counts.missing.length === 0 &&
  counts.unexpected.length === 0;

export function countsEvidence(counts: DeliveryCounts): Evidence {
  const list = (keys: readonly string[]) =>
    keys.length === 0 ? '0' : `${keys.length}: ${keys.slice(0, 10).join(', ')}`;
  return {
    kind: 'values',
    caption: 'Delivery counts (per record key)',
    entries: [
      ['published', String(counts.published)],
      ['consumed', String(counts.consumed)],
      ['distinct keys consumed', String(counts.distinct)],
      ['duplicates', list(counts.duplicates)],
      ['missing', list(counts.missing)],
      ['unexpected', list(counts.unexpected)],
    ],
  };
}

/** Records consumed per member in each stage: who did the work while the group changed. */
export function stageEvidence(
  stages: readonly string[],
  memberNames: readonly string[],
  deliveries: readonly Delivery[],
): Evidence {
  // Every member, the idle ones too (they consumed nothing, which is the point).
  const members = [...new Set([...memberNames, ...deliveries.map((d) => d.member)])].sort((a, b) =>
    a.localeCompare(b, 'en', { numeric: true }),
  );
  const count = (member: string | undefined, stage: string | undefined) =>
    String(
      deliveries.filter(
        (d) => (member === undefined || d.member === member) && (stage === undefined || d.stage === stage),
      ).length,
    );
  return {
    kind: 'table',
    caption: 'Records consumed per member and stage',
    columns: ['Member', ...stages, 'Total'],
    rows: [
      ...members.map((member) => [
        member,
        ...stages.map((stage) => count(member, stage)),
        count(member, undefined),
      ]),
      ['all members', ...stages.map((stage) => count(undefined, stage)), count(undefined, undefined)],
    ],
  };
}
