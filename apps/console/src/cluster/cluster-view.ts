import { AssignerProtocol, ConfigResourceTypes, type Admin, type GroupDescription } from 'kafkajs';
import type { Highs } from './watermarks';

export interface PartitionView {
  readonly partition: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  /** The first offset still retained, and the next offset to be written. */
  readonly low: string;
  readonly high: string;
}

export interface TopicView {
  readonly name: string;
  readonly cleanupPolicy: string;
  readonly retentionMs: string;
  readonly partitions: readonly PartitionView[];
}

export interface MemberView {
  readonly memberId: string;
  readonly clientId: string;
  readonly host: string;
  /** `topic → partitions`, decoded from the member's assignment. */
  readonly assignment: readonly { readonly topic: string; readonly partitions: readonly number[] }[];
}

export interface GroupOffsetView {
  readonly topic: string;
  readonly partition: number;
  /** `-1` when the group has no committed offset for the partition. */
  readonly committed: string;
  readonly high: string;
  /** `high - committed`, or the whole retained log when nothing is committed. */
  readonly lag: number;
  /** The member that holds the partition now, if any. */
  readonly memberId: string | undefined;
}

/** What `kafka-consumer-groups.sh --describe` shows, for one group. */
export interface GroupView {
  readonly groupId: string;
  readonly state: string;
  readonly protocol: string;
  readonly members: readonly MemberView[];
  readonly offsets: readonly GroupOffsetView[];
  readonly totalLag: number;
}

/** Every topic under the prefix (internal ones excluded), with watermarks and cleanup policy. */
export async function describeTopics(admin: Admin, prefix: string): Promise<TopicView[]> {
  const names = (await admin.listTopics())
    .filter((name) => !name.startsWith('__') && name.startsWith(prefix))
    .sort();
  if (names.length === 0) return [];
  const [{ topics }, configs] = await Promise.all([
    admin.fetchTopicMetadata({ topics: names }),
    admin.describeConfigs({
      includeSynonyms: false,
      resources: names.map((name) => ({
        type: ConfigResourceTypes.TOPIC,
        name,
        configNames: ['cleanup.policy', 'retention.ms'],
      })),
    }),
  ]);
  const configOf = new Map(
    configs.resources.map((resource) => [
      resource.resourceName,
      new Map(resource.configEntries.map((entry) => [entry.configName, entry.configValue])),
    ]),
  );
  const offsets = await Promise.all(
    names.map(async (name) => [name, await admin.fetchTopicOffsets(name)] as const),
  );
  const offsetsOf = new Map(offsets);
  return topics
    .map((topic) => {
      const watermarks = new Map((offsetsOf.get(topic.name) ?? []).map((o) => [o.partition, o]));
      const config = configOf.get(topic.name);
      return {
        name: topic.name,
        cleanupPolicy: config?.get('cleanup.policy') ?? 'unknown',
        retentionMs: config?.get('retention.ms') ?? 'unknown',
        partitions: topic.partitions
          .map((p) => ({
            partition: p.partitionId,
            leader: p.leader,
            replicas: p.replicas,
            isr: p.isr,
            low: watermarks.get(p.partitionId)?.low ?? '0',
            high: watermarks.get(p.partitionId)?.high ?? '0',
          }))
          .sort((a, b) => a.partition - b.partition),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The ids of every consumer group the cluster knows, sorted. */
export async function listGroupIds(admin: Admin): Promise<string[]> {
  const { groups } = await admin.listGroups();
  return groups
    .filter((group) => group.protocolType === 'consumer' || group.protocolType === '')
    .map((group) => group.groupId)
    .sort();
}

/** Members, assignments, committed offsets and lag of the given groups. */
export async function describeGroups(
  admin: Admin,
  groupIds: readonly string[],
  highsOf: (topics: readonly string[]) => Promise<Highs> = (topics) => highsThrough(admin, topics),
): Promise<GroupView[]> {
  if (groupIds.length === 0) return [];
  const [{ groups }, existing] = await Promise.all([
    admin.describeGroups([...groupIds]),
    admin.listTopics().then((names) => new Set(names)),
  ]);
  const described = await Promise.all(
    groups.map(async (group) => ({
      group,
      members: group.members.map(memberView),
      committed: await admin.fetchOffsets({ groupId: group.groupId }),
    })),
  );
  const topics = new Set(
    described.flatMap(({ committed, members }) => [
      ...committed.map((t) => t.topic),
      ...members.flatMap((m) => m.assignment.map((a) => a.topic)),
    ]),
  );
  // A deleted topic's offsets outlive it in the group: never ask for its watermarks.
  const highs = await highsOf([...topics].filter((topic) => existing.has(topic)).sort());
  return described
    .map(({ group, members, committed }) => groupView(group, members, committed, highs))
    .sort((a, b) => a.groupId.localeCompare(b.groupId));
}

async function highsThrough(admin: Admin, topics: readonly string[]): Promise<Highs> {
  const highs: Highs = new Map();
  for (const topic of topics) {
    const offsets = await admin.fetchTopicOffsets(topic).catch(() => []);
    highs.set(topic, new Map(offsets.map((o) => [o.partition, o.high])));
  }
  return highs;
}

function memberView(member: GroupDescription['members'][number]): MemberView {
  const decoded =
    member.memberAssignment.length > 0
      ? AssignerProtocol.MemberAssignment.decode(member.memberAssignment)
      : null;
  const assignment = Object.entries(decoded?.assignment ?? {})
    .map(([topic, partitions]) => ({ topic, partitions: [...partitions].sort((a, b) => a - b) }))
    .sort((a, b) => a.topic.localeCompare(b.topic));
  return { memberId: member.memberId, clientId: member.clientId, host: member.clientHost, assignment };
}

function groupView(
  group: GroupDescription,
  members: readonly MemberView[],
  committed: readonly { topic: string; partitions: readonly { partition: number; offset: string }[] }[],
  highs: ReadonlyMap<string, ReadonlyMap<number, string>>,
): GroupView {
  const holder = new Map<string, string>();
  for (const member of members) {
    for (const { topic, partitions } of member.assignment) {
      for (const partition of partitions) holder.set(`${topic}/${partition}`, member.memberId);
    }
  }
  const offsets: GroupOffsetView[] = [];
  const seen = new Set<string>();
  for (const { topic, partitions } of committed) {
    for (const { partition, offset } of partitions) {
      const high = highs.get(topic)?.get(partition) ?? '0';
      seen.add(`${topic}/${partition}`);
      offsets.push({
        topic,
        partition,
        committed: offset,
        high,
        lag: lagOf(offset, high),
        memberId: holder.get(`${topic}/${partition}`),
      });
    }
  }
  // Assigned partitions the group never committed on still belong in the table.
  for (const [key, memberId] of holder) {
    if (seen.has(key)) continue;
    const [topic, partition] = [
      key.slice(0, key.lastIndexOf('/')),
      Number(key.slice(key.lastIndexOf('/') + 1)),
    ];
    const high = highs.get(topic)?.get(partition) ?? '0';
    offsets.push({ topic, partition, committed: '-1', high, lag: lagOf('-1', high), memberId });
  }
  offsets.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  return {
    groupId: group.groupId,
    state: group.state,
    protocol: group.protocol,
    members,
    offsets,
    totalLag: offsets.reduce((sum, o) => sum + o.lag, 0),
  };
}

/** Lag as Kafka's tools print it; nothing committed counts the whole log up to `high`. */
export function lagOf(committed: string, high: string): number {
  const end = BigInt(high);
  const from = BigInt(committed) < 0n ? 0n : BigInt(committed);
  return Number(end > from ? end - from : 0n);
}

export class GroupNotEmptyError extends Error {
  constructor(
    readonly groupId: string,
    readonly members: number,
  ) {
    super(
      `group ${groupId} has ${members} active member${members === 1 ? '' : 's'}: Kafka resets the offsets of an empty group only. Stop its consumers first (e.g. kill -TERM the service: the stack does not restart a clean exit), then reset.`,
    );
  }
}

/**
 * Moves a group's committed offsets to the earliest retained offset of every topic it has
 * committed on: its next start reads the whole log again (the analytics replay).
 */
export async function resetGroupToEarliest(admin: Admin, groupId: string): Promise<{ topics: string[] }> {
  const [group] = (await admin.describeGroups([groupId])).groups;
  if (group !== undefined && group.members.length > 0)
    throw new GroupNotEmptyError(groupId, group.members.length);
  const topics = (await admin.fetchOffsets({ groupId })).map((t) => t.topic).sort();
  // Explicit low watermarks, as `kafka-consumer-groups --reset-offsets --to-earliest` commits
  // them (kafkajs's resetOffsets commits the sentinel -2, which other clients read differently).
  for (const topic of topics) {
    const partitions = (await admin.fetchTopicOffsets(topic)).map(({ partition, low }) => ({
      partition,
      offset: low,
    }));
    await admin.setOffsets({ groupId, topic, partitions });
  }
  return { topics };
}
