import { AssignerProtocol, type Admin } from 'kafkajs';

export interface GroupMember {
  readonly memberId: string;
  readonly clientHost: string;
  /** `topic/partition` of every partition the member holds. */
  readonly partitions: readonly string[];
}

/** The members of a consumer group and what each one is assigned, as the coordinator sees it. */
export async function groupMembers(
  admin: Admin,
  group: string,
): Promise<{ state: string; members: GroupMember[] }> {
  const { groups } = await admin.describeGroups([group]);
  const described = groups[0];
  if (!described) return { state: 'Unknown', members: [] };
  return {
    state: described.state,
    members: described.members.map((member) => {
      const decoded = AssignerProtocol.MemberAssignment.decode(member.memberAssignment);
      const partitions = Object.entries(decoded?.assignment ?? {}).flatMap(([topic, list]) =>
        list.map((partition) => `${topic}/${partition}`),
      );
      return { memberId: member.memberId, clientHost: member.clientHost, partitions: partitions.sort() };
    }),
  };
}
