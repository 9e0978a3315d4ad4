// Kafka brokers of the suite's own, started with infra/bin/kafka.sh on free ports in a temporary
// run directory: the faults that stop or kill brokers never touch the shared 127.0.0.1:9092.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, REPO_ROOT } from '../../support/processes';
import { portsFree } from './ports';

const run = promisify(execFile);
const KAFKA_SH = join(REPO_ROOT, 'infra/bin/kafka.sh');
const LEADER_ELECTION_SH = join(REPO_ROOT, 'infra/bin/kafka-leader-election.sh');

async function kafkaSh(env: Record<string, string>, ...args: string[]): Promise<string> {
  const { stdout, stderr } = await run('bash', [KAFKA_SH, ...args], {
    // Generous start-up budgets: kafka.sh stops a node that does not answer in time, and a busy
    // 2-core machine (JVM tools included) can take minutes.
    env: { KAFKA_START_TIMEOUT: '240', KAFKA_CLUSTER_START_TIMEOUT: '300', ...process.env, ...env },
    timeout: 420_000,
  });
  return stdout + stderr;
}

export interface OwnKafkaNode {
  readonly brokers: string[];
  /** Graceful stop (SIGTERM, as `kafka.sh stop`). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the broker and deletes its data. */
  destroy(): Promise<void>;
}

/** One KRaft broker+controller on free ports (replication factor 1). */
export async function startOwnKafkaNode(): Promise<OwnKafkaNode> {
  const dir = await mkdtemp(join(tmpdir(), 'faults-kafka-'));
  const port = await freePort();
  const env = {
    KAFKA_RUN_DIR: dir,
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(await freePort()),
  };
  const node: OwnKafkaNode = {
    brokers: [`127.0.0.1:${port}`],
    stop: async () => void (await kafkaSh(env, 'stop')),
    start: async () => void (await kafkaSh(env, 'start')),
    destroy: async () => {
      await kafkaSh(env, 'stop').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await node.start();
  } catch (error) {
    await node.destroy();
    throw error;
  }
  return node;
}

export interface OwnKafkaCluster {
  readonly brokers: string[];
  /** Node number (1..3) of the broker listening on `port`. */
  nodeOf(port: number): number;
  /** kill -9 of node N. */
  kill(node: number): Promise<void>;
  /** Starts node N again and waits until it answers. */
  startNode(node: number): Promise<void>;
  /** Freezes node N (SIGSTOP): alive, holding its connections, answering and replicating nothing. */
  pause(node: number): Promise<void>;
  resume(node: number): Promise<void>;
  /** Makes each partition's first replica its leader again (a preferred leader election). */
  electPreferredLeaders(): Promise<void>;
  destroy(): Promise<void>;
}

/** A base port with three free client ports and three free controller ports after it. */
async function freeRange(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 20_000);
    if (await portsFree([base, base + 1, base + 2, base + 100, base + 101, base + 102])) return base;
  }
  throw new Error('no free port range for the Kafka cluster');
}

/** Three KRaft nodes (replication factor 3, min.insync.replicas 2) on free ports. */
export async function startOwnKafkaCluster(): Promise<OwnKafkaCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'faults-kafka-cluster-'));
  const base = await freeRange();
  const env = {
    KAFKA_CLUSTER_RUN_DIR: dir,
    KAFKA_CLUSTER_PORT_BASE: String(base),
    KAFKA_CLUSTER_CONTROLLER_PORT_BASE: String(base + 100),
  };
  const cluster: OwnKafkaCluster = {
    brokers: [0, 1, 2].map((n) => `127.0.0.1:${base + n}`),
    nodeOf: (port) => port - base + 1,
    kill: async (node) => void (await kafkaSh(env, 'cluster-kill', String(node))),
    startNode: async (node) => void (await kafkaSh(env, 'cluster-start-node', String(node))),
    pause: async (node) => void (await kafkaSh(env, 'cluster-pause', String(node))),
    resume: async (node) => void (await kafkaSh(env, 'cluster-resume', String(node))),
    electPreferredLeaders: async () =>
      void (await run(
        'bash',
        [
          LEADER_ELECTION_SH,
          '--bootstrap-server',
          `127.0.0.1:${base}`,
          '--election-type',
          'PREFERRED',
          '--all-topic-partitions',
        ],
        { timeout: 120_000 },
      )),
    destroy: async () => {
      await kafkaSh(env, 'cluster-stop').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await kafkaSh(env, 'cluster-start');
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  return cluster;
}
