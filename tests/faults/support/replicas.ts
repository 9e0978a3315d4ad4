import type { Admin, PartitionMetadata } from 'kafkajs';

/** The leader of a topic's partition, by broker node id. */
export async function leaderOf(admin: Admin, topic: string, partition: number): Promise<number> {
  const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
  const leader = topics[0]?.partitions.find((p) => p.partitionId === partition)?.leader;
  if (leader === undefined || leader < 0) throw new Error(`${topic}/${partition} has no leader`);
  return leader;
}

/** `topic/partition` of every partition of `topics` that `matches`. */
async function partitionsWhere(
  admin: Admin,
  topics: readonly string[],
  matches: (partition: PartitionMetadata) => boolean,
): Promise<string[]> {
  const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [...topics] });
  return metadata.flatMap((topic) =>
    topic.partitions.filter(matches).map((p) => `${topic.name}/${p.partitionId}`),
  );
}

/** Partitions of `topics` whose in-sync replicas are fewer than `replicas`. */
export const underReplicated = (admin: Admin, topics: readonly string[], replicas: number) =>
  partitionsWhere(admin, topics, (p) => p.isr.length < replicas);

/** Partitions of `topics` not led by `node`. */
export const notLedBy = (admin: Admin, topics: readonly string[], node: number) =>
  partitionsWhere(admin, topics, (p) => p.leader !== node);

/**
 * Reorders the replicas of every partition of `topics` so that `node` comes first (the same
 * replica set: nothing moves); a preferred leader election then makes it the leader of all.
 */
export async function preferLeader(admin: Admin, topics: readonly string[], node: number): Promise<void> {
  const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [...topics] });
  await admin.alterPartitionReassignments({
    topics: metadata.map((topic) => ({
      topic: topic.name,
      partitionAssignment: topic.partitions.map((p) => ({
        partition: p.partitionId,
        replicas: [node, ...p.replicas.filter((replica) => replica !== node)],
      })),
    })),
  });
}
