import type { Admin, Producer } from 'kafkajs';
import type { Evidence, Experiment, ExperimentContext, ExperimentVerdict } from '../experiment';
import { pause, waitFor } from '../support/abortable';
import { brokerAvailability } from '../support/broker-availability';
import { LabResources, removedText } from '../support/lab-resources';
import { assignmentEvidence, assignmentShape, decodeAssignment, formatShape } from './assignment-table';
import { countDeliveries, countsEvidence, exactlyOnce, stageEvidence } from './delivery-counts';
import { GroupMembers } from './group-members';

const PARTITIONS = 4;
const RECORDS = 100;
const STAGES = [
  { name: '2 members', members: 2, shape: [2, 2] },
  { name: '3 members', members: 3, shape: [2, 1, 1] },
  { name: '5 members', members: 5, shape: [1, 1, 1, 1, 0] },
] as const;
const REBALANCING = new Set(['PreparingRebalance', 'CompletingRebalance']);

export const consumerGroupsExperiment: Experiment = {
  id: 'consumer-groups',
  title: 'Consumer groups: rebalancing',
  description:
    'A group shares the partitions of a topic among its members. When a member joins, the broker rebalances: every member gives up its partitions and gets a new share. A member beyond the partition count gets nothing and stays idle.',
  criterion:
    'On a 4-partition topic, 2 members get 2/2, a 3rd makes it 2/1/1, 5 members give 1/1/1/1 and one idle member; the 100 records published during the rebalances are all consumed exactly once.',
  availability: ({ kafka, brokers }) => brokerAvailability(kafka, brokers),
  run: runConsumerGroups,
};

async function runConsumerGroups(context: ExperimentContext): Promise<ExperimentVerdict> {
  const { kafka, signal } = context;
  const lab = new LabResources(context);
  const topic = lab.name('records');
  const groupId = lab.name('group');
  let stage: string = STAGES[0].name;
  const members = new GroupMembers({ kafka, groupId, topic, stage: () => stage });
  const producer = kafka.producer();
  lab.onCleanup(() => producer.disconnect());
  const published: string[] = [];
  try {
    const admin = await lab.connectedAdmin();
    await lab.createTopics([{ name: 'records', partitions: PARTITIONS }]);
    await producer.connect();
    context.step(`Created topic ${topic} with ${PARTITIONS} partitions; group ${groupId}.`);

    const tables: Evidence[] = [];
    for (const [index, target] of STAGES.entries()) {
      stage = target.name;
      const joining = Array.from({ length: target.members - members.size }, () => members.add());
      if (index > 0) {
        // The records go out while the group rebalances: joining members wait for it, old ones rejoin.
        const state = await rebalanceStarted(admin, groupId, signal);
        const half = RECORDS / 2;
        const lines = await publish(producer, topic, published, half, () => groupState(admin, groupId));
        context.step(
          `Published ${half} records (${published.length} in all) once the rebalance began (${state}).`,
          {
            kind: 'log',
            caption: 'Group state at each batch',
            lines,
          },
        );
      }
      await Promise.all(joining);
      const assignment = await waitFor(
        `${target.members} members assigned ${formatShape(target.shape)}`,
        async () => {
          const { groups } = await admin.describeGroups([groupId]);
          const group = groups[0];
          if (group?.state !== 'Stable' || group.members.length !== target.members) return undefined;
          const decoded = decodeAssignment(group, topic, members.labels);
          return formatShape(assignmentShape(decoded)) === formatShape(target.shape) ? decoded : undefined;
        },
        { signal, timeoutMs: 40_000, intervalMs: 250 },
      );
      // Let the stage's records be consumed by its members before the next stage changes the group.
      await waitFor(
        `the ${published.length} records published so far to be consumed`,
        () => members.deliveries.length >= published.length || undefined,
        { signal, timeoutMs: 20_000, intervalMs: 250 },
      ).catch((error: unknown) => {
        if (signal.aborted) throw error;
      });
      const table = assignmentEvidence(`Assignment with ${target.name}`, assignment);
      tables.push(table);
      context.step(`Stable with ${target.name}: ${formatShape(target.shape)}.`, table);
    }

    // Missing records are evidence, not an error: on a timeout the verdict names them.
    await waitFor(
      `${RECORDS} records consumed`,
      () => countDeliveries(published, members.deliveries).distinct >= RECORDS || undefined,
      { signal, timeoutMs: 30_000, intervalMs: 250 },
    ).catch((error: unknown) => {
      if (signal.aborted) throw error;
    });
    // A duplicate would come late (after a rebalance): give one last look before deciding.
    await pause(1_000, signal);
    const final = countDeliveries(published, members.deliveries);
    const partitions = await partitionEvidence(admin, topic, groupId, members);
    const evidence = [
      ...tables,
      stageEvidence(
        STAGES.map((s) => s.name),
        members.names,
        members.deliveries,
      ),
      partitions,
      countsEvidence(final),
    ];
    context.step(
      `Consumed ${final.consumed} records (${final.distinct} distinct keys).`,
      countsEvidence(final),
    );
    const passed = exactlyOnce(final);
    return {
      passed,
      summary: passed
        ? `2/2, 2/1/1 and 1/1/1/1/0 as expected; all ${RECORDS} records consumed exactly once.`
        : `Not exactly once: ${final.consumed} consumed, ${final.duplicates.length} duplicated, ${final.missing.length} missing.`,
      evidence,
    };
  } finally {
    await members.stop();
    const removed = await lab.cleanup().catch(() => undefined);
    if (removed !== undefined) context.step(removedText(removed));
  }
}

async function groupState(admin: Admin, groupId: string): Promise<string> {
  const { groups } = await admin.describeGroups([groupId]);
  return groups[0]?.state ?? 'Unknown';
}

/** The state once the rebalance is seen (it can be too short to see: then the current state). */
async function rebalanceStarted(admin: Admin, groupId: string, signal: AbortSignal): Promise<string> {
  return waitFor(
    'the rebalance to begin',
    async () => {
      const state = await groupState(admin, groupId);
      return REBALANCING.has(state) ? state : undefined;
    },
    { signal, timeoutMs: 10_000, intervalMs: 20 },
  ).catch(() => groupState(admin, groupId));
}

/** Publishes `count` records in batches of 10, each spread over the partitions; returns what the group was doing. */
async function publish(
  producer: Producer,
  topic: string,
  published: string[],
  count: number,
  state: () => Promise<string>,
): Promise<string[]> {
  const lines: string[] = [];
  for (let batch = 0; batch < count / 10; batch++) {
    const first = published.length;
    const messages = Array.from({ length: 10 }, (_, i) => ({
      key: `record-${first + i}`,
      value: `value-${first + i}`,
      partition: (first + i) % PARTITIONS,
    }));
    await producer.send({ topic, messages });
    published.push(...messages.map((message) => message.key));
    lines.push(`records ${first}–${first + 9} published; group ${await state()}`);
  }
  return lines;
}

/** Per partition: what was published and consumed, and the group's committed offset. */
async function partitionEvidence(
  admin: Admin,
  topic: string,
  groupId: string,
  members: GroupMembers,
): Promise<Evidence> {
  const [ends, [committed]] = await Promise.all([
    admin.fetchTopicOffsets(topic),
    admin.fetchOffsets({ groupId, topics: [topic] }),
  ]);
  const rows = ends
    .sort((a, b) => a.partition - b.partition)
    .map((end) => {
      const delivered = members.deliveries.filter((d) => d.partition === end.partition);
      const offset = committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? '-1';
      return [
        String(end.partition),
        end.high,
        String(delivered.length),
        String(new Set(delivered.map((d) => d.key)).size),
        offset,
      ];
    });
  return {
    kind: 'table',
    caption: 'Per partition: end offset, records consumed, committed offset',
    columns: ['Partition', 'End offset', 'Consumed', 'Distinct', 'Committed'],
    rows,
  };
}
