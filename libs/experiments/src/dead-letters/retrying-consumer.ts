import type { Kafka, KafkaMessage } from 'kafkajs';
import {
  DeadLetterPublisher,
  backoffDelay,
  classifyError,
  logDeadLetter,
  type ErrorClass,
  type RetryOptions,
} from '@pipeline/messaging';
import { messageOf } from '@pipeline/observability';
import { pause } from '../support/abortable';

export interface FailedAttempt {
  readonly offset: string;
  readonly attempt: number;
  readonly error: string;
  readonly errorClass: ErrorClass;
  /** The backoff before the next attempt; absent after the last one. */
  readonly backoffMs?: number;
}

export interface RetryingConsumerOptions {
  readonly groupId: string;
  readonly topic: string;
  readonly deadLetterTopic: string;
  readonly retry: RetryOptions;
  /** Receives the DLT logger's WARN line, as the service's logger would. */
  readonly logger: Parameters<typeof logDeadLetter>[0];
  readonly signal: AbortSignal;
  /** Looked up for every attempt, so that the experiment can "fix" it between two records. */
  handler(): (message: KafkaMessage) => Promise<void>;
  onFailedAttempt(attempt: FailedAttempt): void;
  onProcessed(message: KafkaMessage): void;
  onDeadLettered(message: KafkaMessage): void;
  onDeadLetterRead(partition: number, message: KafkaMessage): void;
}

/**
 * The pipeline's consumer rules in a plain kafkajs loop (no database, no NestJS): a failing record
 * is retried with the project's backoff while its error is retriable (classifyError), then
 * produced to the dead-letter topic with the diagnostic headers (DeadLetterPublisher), and only
 * then is its offset committed: the partition moves on without losing the record. The same group
 * reads the dead-letter topic and logs each record at WARN (logDeadLetter), as every service does.
 */
export async function startRetryingConsumer(
  kafka: Kafka,
  options: RetryingConsumerOptions,
): Promise<{ stop(): Promise<void> }> {
  const { topic, deadLetterTopic, retry, signal } = options;
  const publisher = new DeadLetterPublisher(kafka, deadLetterTopic, options.groupId);
  const consumer = kafka.consumer({
    groupId: options.groupId,
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: 200,
  });
  const stop = async () => {
    await consumer.disconnect();
    await publisher.disconnect();
  };
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic, deadLetterTopic], fromBeginning: true });
    await run();
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  return { stop };

  function run(): Promise<void> {
    return consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic: from, partition, message }) => {
        if (from === deadLetterTopic) {
          logDeadLetter(options.logger, from, partition, message);
          options.onDeadLetterRead(partition, message);
        } else if (!(await processWithRetries(message, partition))) return;
        const next = (BigInt(message.offset) + 1n).toString();
        await consumer.commitOffsets([{ topic: from, partition, offset: next }]);
      },
    });
  }

  /** False when the run was stopped before the record was settled: its offset stays. */
  async function processWithRetries(message: KafkaMessage, partition: number): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await options.handler()(message);
        options.onProcessed(message);
        return true;
      } catch (thrown) {
        const error = messageOf(thrown);
        const errorClass = classifyError(thrown);
        if (errorClass === 'fatal' || attempt >= retry.attempts) {
          options.onFailedAttempt({ offset: message.offset, attempt, error, errorClass });
          await publisher.send([{ topic, partition, message, error, errorClass, attempts: attempt }]);
          options.onDeadLettered(message);
          return true;
        }
        const backoffMs = backoffDelay(attempt, retry);
        options.onFailedAttempt({ offset: message.offset, attempt, error, errorClass, backoffMs });
        const slept = await pause(backoffMs, signal).then(
          () => true,
          () => false,
        );
        if (!slept) return false;
      }
    }
  }
}
