import { randomBytes } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import type { Evidence, ExperimentContext, ExperimentStep } from '@pipeline/experiments';
import { KAFKA_BROKERS, testKafka } from '../support/kafka';

export interface LocalContext extends ExperimentContext {
  readonly steps: ExperimentStep[];
  readonly abort: AbortController;
}

/** What the console's runner gives an experiment, in miniature: a unique prefix, a stop switch, a step log. */
export function localContext(id: string, kafka: Kafka = testKafka(), brokers = KAFKA_BROKERS): LocalContext {
  const abort = new AbortController();
  const steps: ExperimentStep[] = [];
  const startedAt = Date.now();
  return {
    kafka,
    brokers,
    namePrefix: `test.lab.${id}.${randomBytes(4).toString('hex')}.`,
    signal: abort.signal,
    abort,
    steps,
    step: (text: string, evidence?: Evidence) =>
      void steps.push({ atMs: Date.now() - startedAt, text, ...(evidence ? { evidence } : {}) }),
  };
}

/** Every topic and consumer group whose name starts with `prefix`: what a run must not leave behind. */
export async function leftovers(kafka: Kafka, prefix: string): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = await admin.listTopics();
    const { groups } = await admin.listGroups();
    return [...topics, ...groups.map((g) => g.groupId)].filter((name) => name.startsWith(prefix));
  } finally {
    await admin.disconnect();
  }
}
