import { AssignerProtocol, type GroupDescription } from 'kafkajs';
import type { Evidence } from '../experiment';

/** One member of the group and the partitions of the topic the broker assigned it. */
export interface MemberPartitions {
  readonly member: string;
  readonly partitions: readonly number[];
}

/**
 * The group's assignment as the broker reports it (describeGroups), decoded per member. `labels`
 * names the members this process started (memberId → `member-1`, ...); others keep their id.
 */
export function decodeAssignment(
  group: GroupDescription,
  topic: string,
  labels: ReadonlyMap<string, string>,
): MemberPartitions[] {
  return group.members
    .map((member) => {
      const decoded = AssignerProtocol.MemberAssignment.decode(member.memberAssignment);
      const partitions = [...(decoded?.assignment[topic] ?? [])].sort((a, b) => a - b);
      return { member: labels.get(member.memberId) ?? member.memberId, partitions };
    })
    .sort((a, b) => a.member.localeCompare(b.member, 'en', { numeric: true }));
}

/** Partitions per member, largest first: 2/1/1 whoever holds which. */
export const assignmentShape = (members: readonly MemberPartitions[]): number[] =>
  members.map((member) => member.partitions.length).sort((a, b) => b - a);

export const formatShape = (shape: readonly number[]): string => shape.join('/');

/** The assignment table: member → partitions, with an idle member marked as such. */
export function assignmentEvidence(caption: string, members: readonly MemberPartitions[]): Evidence {
  return {
    kind: 'table',
    caption: `${caption}: ${formatShape(assignmentShape(members))}`,
    columns: ['Member', 'Partitions', 'Count'],
    rows: members.map((member) => [
      member.member,
      member.partitions.length === 0 ? '(idle)' : member.partitions.join(', '),
      String(member.partitions.length),
    ]),
  };
}
