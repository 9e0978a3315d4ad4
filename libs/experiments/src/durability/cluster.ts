import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createKafka, parseBrokerList } from '@pipeline/messaging';
import { logLevel, type Kafka } from 'kafkajs';

const run = promisify(execFile);

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The three-node cluster of `npm run kafka:cluster:start`, as infra/bin/kafka.sh places it:
 * client ports KAFKA_CLUSTER_PORT_BASE (19092) .. +2 on KAFKA_HOST (127.0.0.1), or the list in
 * KAFKA_CLUSTER_BROKERS. Node N (1..3) has node.id N and listens on base + N − 1.
 */
export function clusterBrokers(env: Env = process.env): string[] {
  if (env.KAFKA_CLUSTER_BROKERS) return parseBrokerList(env.KAFKA_CLUSTER_BROKERS);
  const base = Number(env.KAFKA_CLUSTER_PORT_BASE ?? 19092);
  const host = env.KAFKA_HOST ?? '127.0.0.1';
  return [0, 1, 2].map((n) => `${host}:${base + n}`);
}

export const START_CLUSTER_HOW_TO =
  'Start it with `npm run kafka:cluster:start` (three KRaft nodes on 127.0.0.1:19092-19094, state in .run/kafka-cluster/; ' +
  'stop it with `npm run kafka:cluster:stop`), then run the experiment again. ' +
  'KAFKA_CLUSTER_BROKERS (or KAFKA_CLUSTER_PORT_BASE) and KAFKA_CLUSTER_RUN_DIR point it at another cluster.';

/** A client for the cluster that fails fast when it is not there (the probe must not hang the run). */
export function clusterKafka(brokers: readonly string[], clientId: string): Kafka {
  return createKafka(
    { brokers, clientId },
    {
      connectionTimeout: 1_000,
      retry: { retries: 2, initialRetryTime: 200 },
      // A killed broker makes kafkajs log every refused connection: the steps say what happens.
      logLevel: logLevel.NOTHING,
    },
  );
}

/** The ids of the cluster's brokers that answer, or undefined when none does. */
export async function liveBrokers(kafka: Kafka): Promise<number[] | undefined> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    const { brokers } = await admin.describeCluster();
    return brokers.map((b) => b.nodeId).sort();
  } catch {
    return undefined;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Runs `infra/bin/kafka.sh <command> <node>` (cluster-kill, cluster-start-node) with this process's environment. */
export async function clusterNode(
  kafkaSh: string,
  command: 'cluster-kill' | 'cluster-start-node',
  node: number,
): Promise<string> {
  const { stdout, stderr } = await run('bash', [kafkaSh, command, String(node)], {
    env: { KAFKA_START_TIMEOUT: '180', ...process.env },
    timeout: 240_000,
  });
  return (stdout + stderr).trim();
}
