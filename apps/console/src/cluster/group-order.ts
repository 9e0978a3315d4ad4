import { consumerGroupOf, ServiceNames, type ServiceName } from '@pipeline/contracts';

/** Where a consumer group belongs on the groups page, in the order the page shows them. */
export type GroupKind = 'pipeline' | 'console' | 'other';

export interface GroupRules {
  /** The five services' groups, in pipeline order (order, payment, inventory, email, analytics). */
  readonly pipeline: readonly string[];
  /** A group whose name starts with one of these is the console's own. */
  readonly consolePrefixes: readonly string[];
}

/**
 * Groups the console's load runs and experiments create: their names start with the console's
 * own group or with `lab.` (add a prefix here when a new tool of the console makes groups).
 */
export const ConsoleGroupPrefixes = ['lab.'] as const;

/**
 * The rules for a console configured with a topic prefix, a consumer group and the services'
 * groups (`<SERVICE>_SERVICE_GROUP`, the ones the flow page draws). Besides those, the services'
 * default names count, prefixed (how the bench and the load generator run them) and plain
 * (KAFKA_CONSUMER_GROUP unset, as `npm run stack` runs them).
 */
export function groupRules(
  topicPrefix: string,
  consoleGroup: string,
  serviceGroups: Partial<Readonly<Record<ServiceName, string>>> = {},
): GroupRules {
  const pipeline = ServiceNames.flatMap((service) => {
    const group = consumerGroupOf(service);
    const names = [serviceGroups[service], topicPrefix === '' ? undefined : topicPrefix + group, group];
    return [...new Set(names.filter((name): name is string => name !== undefined))];
  });
  return { pipeline, consolePrefixes: [consoleGroup, ...ConsoleGroupPrefixes] };
}

export function classifyGroup(groupId: string, rules: GroupRules): GroupKind {
  if (rules.pipeline.includes(groupId)) return 'pipeline';
  if (rules.consolePrefixes.some((prefix) => groupId.startsWith(prefix))) return 'console';
  return 'other';
}

export interface OrderedGroups<T> {
  readonly pipeline: T[];
  readonly console: T[];
  readonly other: T[];
}

/** Splits groups by kind: the pipeline's in pipeline order, the others by name. */
export function orderGroups<T extends { readonly groupId: string }>(
  groups: readonly T[],
  rules: GroupRules,
): OrderedGroups<T> {
  const ordered: OrderedGroups<T> = { pipeline: [], console: [], other: [] };
  const byName = [...groups].sort((a, b) => a.groupId.localeCompare(b.groupId));
  for (const group of byName) ordered[classifyGroup(group.groupId, rules)].push(group);
  ordered.pipeline.sort((a, b) => rules.pipeline.indexOf(a.groupId) - rules.pipeline.indexOf(b.groupId));
  return ordered;
}

/** A group with no members that Kafka still keeps (its committed offsets), e.g. left by a tool. */
export const isEmptyGroup = (group: { readonly state: string; readonly members: readonly unknown[] }) =>
  group.state === 'Empty' && group.members.length === 0;

/** The page's filter: a case-insensitive substring of the group's name; empty keeps every group. */
export const matchesFilter = (groupId: string, filter: string): boolean =>
  filter === '' || groupId.toLowerCase().includes(filter.toLowerCase());
