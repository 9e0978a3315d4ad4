import { randomBytes } from 'node:crypto';
import type { Admin, ITopicConfig } from 'kafkajs';
import { waitUntilServed } from '@pipeline/messaging';

/**
 * `lab.<experiment id>.<random>.`: every topic and group of one run starts with it. The pipeline's
 * topics (@pipeline/contracts Topics) and groups never start with `lab.`, so a run cannot touch them.
 */
export const labPrefix = (experimentId: string): string =>
  `lab.${experimentId}.${randomBytes(4).toString('hex')}.`;

/** Creates a topic (replication factor 1 unless given) and waits until its leaders serve it. */
export async function createLabTopic(admin: Admin, topic: ITopicConfig): Promise<void> {
  await admin.createTopics({ waitForLeaders: false, topics: [{ replicationFactor: 1, ...topic }] });
  await waitUntilServed(admin, [topic.topic]);
}

export interface LabResources {
  readonly topics: readonly string[];
  readonly groups: readonly string[];
}

/** The topics and groups whose names start with `prefix`. */
export async function labResources(admin: Admin, prefix: string): Promise<LabResources> {
  const [topics, { groups }] = await Promise.all([admin.listTopics(), admin.listGroups()]);
  return {
    topics: topics.filter((name) => name.startsWith(prefix)).sort(),
    groups: groups
      .map((group) => group.groupId)
      .filter((id) => id.startsWith(prefix))
      .sort(),
  };
}

/**
 * Deletes every group, then every topic, of the run (groups first: a group's committed offsets
 * outlive its topic). Members must have left: an empty group is deletable, a live one is not.
 */
export async function removeLabResources(admin: Admin, prefix: string): Promise<LabResources> {
  const found = await labResources(admin, prefix);
  if (found.groups.length > 0) await admin.deleteGroups([...found.groups]);
  if (found.topics.length > 0) await admin.deleteTopics({ topics: [...found.topics] });
  return found;
}
