import { AssignerProtocol, type GroupDescription } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { assignmentEvidence, assignmentShape, decodeAssignment, formatShape } from './assignment-table';

const member = (memberId: string, assignment: Record<string, number[]>) => ({
  memberId,
  clientId: 'lab',
  clientHost: '/127.0.0.1',
  memberMetadata: Buffer.alloc(0),
  memberAssignment: AssignerProtocol.MemberAssignment.encode({
    version: 1,
    assignment,
    userData: Buffer.alloc(0),
  }),
});
const group = (members: ReturnType<typeof member>[]): GroupDescription => ({
  groupId: 'g',
  members,
  protocol: 'RoundRobinAssigner',
  protocolType: 'consumer',
  state: 'Stable',
});

describe('assignment table', () => {
  it('decodes each member’s partitions of the topic, names known members, and sorts them', () => {
    const decoded = decodeAssignment(
      group([member('id-b', { t: [3, 1], other: [0] }), member('id-a', { t: [0] }), member('id-x', {})]),
      't',
      new Map([
        ['id-a', 'member-10'],
        ['id-b', 'member-2'],
      ]),
    );
    expect(decoded).toEqual([
      { member: 'id-x', partitions: [] },
      { member: 'member-2', partitions: [1, 3] },
      { member: 'member-10', partitions: [0] },
    ]);
    expect(formatShape(assignmentShape(decoded))).toBe('2/1/0');
  });

  it('renders member → partitions, the idle member marked, the shape in the caption', () => {
    expect(
      assignmentEvidence('With 3 members', [
        { member: 'member-1', partitions: [0, 1] },
        { member: 'member-2', partitions: [] },
      ]),
    ).toEqual({
      kind: 'table',
      caption: 'With 3 members: 2/0',
      columns: ['Member', 'Partitions', 'Count'],
      rows: [
        ['member-1', '0, 1', '2'],
        ['member-2', '(idle)', '0'],
      ],
    });
  });
});
