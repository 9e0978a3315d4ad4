import { z } from 'zod';
import { runKafkaTool, type KafkaToolOptions } from './kafka-cli';

// What LogDirsCommand (`kafka-log-dirs.sh --describe`) prints after its two header lines: one JSON line.
const LogDirsSchema = z.object({
  brokers: z.array(
    z.object({
      broker: z.number(),
      logDirs: z.array(
        z.object({
          logDir: z.string(),
          partitions: z.array(z.object({ partition: z.string(), size: z.number() })),
        }),
      ),
    }),
  ),
});

export interface PartitionSizeQuery extends KafkaToolOptions {
  readonly brokers: readonly string[];
  readonly topic: string;
  readonly partition?: number;
}

/**
 * The size in bytes of a partition as Kafka's own log-dirs tool reports it (the sum of its
 * segment files; with several replicas, the largest copy). Asking the broker's tool rather than
 * the file system is what "the partition shrank" means to an operator, wherever the data lives.
 */
export async function partitionSize(query: PartitionSizeQuery): Promise<number> {
  const stdout = await runKafkaTool(
    'org.apache.kafka.tools.LogDirsCommand',
    ['--bootstrap-server', query.brokers.join(','), '--describe', '--topic-list', query.topic],
    query,
  );
  const json = stdout.split('\n').find((line) => line.startsWith('{'));
  if (json === undefined) throw new Error(`kafka-log-dirs printed no JSON:\n${stdout}`);
  const name = `${query.topic}-${query.partition ?? 0}`;
  const found = LogDirsSchema.parse(JSON.parse(json))
    .brokers.flatMap((broker) => broker.logDirs)
    .flatMap((dir) => dir.partitions)
    .filter((entry) => entry.partition === name);
  if (found.length === 0) throw new Error(`kafka-log-dirs does not list ${name}:\n${json}`);
  return Math.max(...found.map((entry) => entry.size));
}
