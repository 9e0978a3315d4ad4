import type { Evidence, Experiment, ExperimentContext, ExperimentVerdict } from '../experiment';
import { kafkaCliAvailability, requireKafkaCli, type KafkaCliTools } from '../kafka-cli/kafka-cli';
import { withLabResources, type LabResources } from '../support/lab-resources';
import { runBrokerLoss, type BrokerLossResult } from './broker-loss';
import { clusterBrokers, clusterKafka, liveBrokers, START_CLUSTER_HOW_TO } from './cluster';
import {
  brokerLossEvidence,
  durabilityProblems,
  lingerRatios,
  perfTable,
  type PerfPair,
} from './durability-evidence';
import { runProducerPerf, type PerfResult } from './producer-perf';

/**
 * Two pairs, each the same count and size for linger.ms 0 and 20: as fast as the producer can (its
 * batches fill to batch.size whatever linger.ms says, so records/s tells), and at a rate it keeps
 * up with easily (linger.ms alone decides how many records share a produce request).
 */
export const PERF_PAIRS: readonly PerfPair[] = [
  { label: 'as fast as it can', records: 10_000, recordBytes: 512, throughput: -1 },
  { label: '2,500 records/s offered', records: 5_000, recordBytes: 512, throughput: 2_500 },
];

export const durabilityExperiment: Experiment = {
  id: 'durability',
  title: 'Linger, acks=all and the loss of a broker',
  description:
    "Kafka's producer perf tool with linger.ms 0 and 20 shows what batching buys (records/s, produce requests); " +
    'on the three-node cluster, killing a broker during an acks=all run shows that an acknowledged record survives it.',
  criterion:
    'The producer perf tool runs with linger.ms 0 and 20 and the ratio is measured. Where the three-node cluster is running ' +
    '(npm run kafka:cluster:start), a broker is killed during an acks=all run (replication factor 3, min.insync.replicas 2) ' +
    'and started again, and no acknowledged record is missing.',
  availability: () => Promise.resolve(kafkaCliAvailability()),
  run: runDurability,
};

async function runDurability(context: ExperimentContext): Promise<ExperimentVerdict> {
  const tools = requireKafkaCli();
  const perf = await withLabResources(context, (lab) => runPerfPairs(context, tools, lab));

  context.signal.throwIfAborted();
  const brokers = clusterBrokers();
  const cluster = clusterKafka(brokers, `${context.namePrefix}cluster`);
  const live = await liveBrokers(cluster);
  let loss: BrokerLossResult | undefined;
  let clusterNote: string | undefined;
  if (live === undefined || live.length < 3) {
    clusterNote = `The broker-loss half needs the three-node cluster, which is not running at ${brokers.join(',')}${live ? ` (only node(s) ${live.join(', ')} answer)` : ''}. ${START_CLUSTER_HOW_TO}`;
    context.step(clusterNote);
  } else if (tools.kafkaSh === undefined) {
    clusterNote =
      'The cluster answers, but infra/bin/kafka.sh (which kills and restarts its nodes) is not in this checkout: the broker-loss half runs from the repository.';
    context.step(clusterNote);
  } else {
    context.step(`The three-node cluster answers at ${brokers.join(',')} (nodes ${live.join(', ')}).`);
    const { kafkaSh } = tools;
    loss = await withLabResources({ kafka: cluster, namePrefix: context.namePrefix }, (clusterLab) =>
      runBrokerLoss(context, cluster, clusterLab, kafkaSh),
    );
    context.step(
      `Read back ${loss.read} records; ${loss.missing.length} of ${loss.acknowledged} acknowledged are missing.`,
      brokerLossEvidence(loss),
    );
  }

  const problems = durabilityProblems(perf, PERF_PAIRS, loss);
  const ratios = lingerRatios(perf, PERF_PAIRS);
  const evidence: Evidence[] = [perfTable(perf), ratios];
  if (loss) evidence.push(brokerLossEvidence(loss));
  else
    evidence.push({
      kind: 'values',
      caption: 'Broker loss (not run)',
      entries: [['needs', clusterNote ?? '']],
    });
  const measured = `linger.ms 20 against 0: ${ratioText(ratios)}`;
  return {
    passed: problems.length === 0,
    summary:
      problems.length > 0
        ? problems.join('; ')
        : loss
          ? `${measured}; a broker killed during the acks=all run lost none of the ${loss.acknowledged} acknowledged records.`
          : `${measured}. Broker loss not run: start the three-node cluster with npm run kafka:cluster:start.`,
    evidence,
  };
}

/** Each pair with linger.ms 0 and 20, on a topic of the run. */
async function runPerfPairs(
  context: ExperimentContext,
  tools: KafkaCliTools,
  lab: LabResources,
): Promise<PerfResult[]> {
  const [topic] = await lab.createTopics([{ name: 'perf' }]);
  if (topic === undefined) throw new Error('topic not created');
  context.step(`Created ${topic} (1 partition) on ${context.brokers.join(',')}.`);
  const perf: PerfResult[] = [];
  for (const pair of PERF_PAIRS)
    for (const lingerMs of [0, 20]) {
      context.step(
        `Producer perf tool, ${pair.label}: ${pair.records} records of ${pair.recordBytes} B, acks=all, linger.ms=${lingerMs} ...`,
      );
      const result = await runProducerPerf(tools, {
        topic,
        bootstrap: context.brokers.join(','),
        records: pair.records,
        recordBytes: pair.recordBytes,
        throughput: pair.throughput,
        lingerMs,
        signal: context.signal,
      });
      perf.push(result);
      context.step(result.summaryLine);
    }
  context.step('linger.ms 0 against 20:', perfTable(perf));
  return perf;
}

const ratioText = (ratios: Evidence): string =>
  ratios.kind === 'values' ? ratios.entries.map(([name, value]) => `${name} ${value}`).join(', ') : '';
