import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { z } from 'zod';
import { REPO_ROOT } from './processes';

const run = promisify(execFile);

// What `kafka-log-dirs.sh --describe` prints after its two header lines (one JSON line).
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

/**
 * The size in bytes of `topic`'s partition as Kafka's own log-dirs tool reports it (the sum of
 * the partition's segment files; with several replicas, the largest copy).
 * Asking the broker's tool rather than the file system is what "the partition shrank" means to
 * an operator, and it works wherever the broker's data lives.
 */
export async function partitionSize(topic: string, partition = 0): Promise<number> {
  const { stdout } = await run('bash', ['infra/bin/kafka-log-dirs.sh', '--describe', '--topic-list', topic], {
    cwd: REPO_ROOT,
    timeout: 60_000,
  });
  const json = stdout.split('\n').find((line) => line.startsWith('{'));
  if (json === undefined) throw new Error(`kafka-log-dirs printed no JSON:\n${stdout}`);
  const name = `${topic}-${partition}`;
  const found = LogDirsSchema.parse(JSON.parse(json))
    .brokers.flatMap((broker) => broker.logDirs)
    .flatMap((dir) => dir.partitions)
    .filter((entry) => entry.partition === name);
  if (found.length === 0) throw new Error(`kafka-log-dirs does not list ${name}:\n${json}`);
  return Math.max(...found.map((entry) => entry.size));
}
