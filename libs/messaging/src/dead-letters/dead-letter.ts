import type { LoggerService } from '@nestjs/common';
import { DeadLetterHeaders, EventHeaders, UNDECODABLE_BATCH, headerValue } from '@pipeline/contracts';
import { CompressionTypeOf, type CompressionName, type UndecodableBatch } from '@pipeline/kafka-codecs';
import { PipelineMetrics, messageOf } from '@pipeline/observability';
import {
  CompressionTypes,
  Partitioners,
  type IHeaders,
  type Kafka,
  type KafkaMessage,
  type Message,
  type Producer,
} from 'kafkajs';
import type { ConsumerCounters } from '../events/consumer-stats';
import type { EventContracts } from '@pipeline/contracts';
import type { ErrorClass } from '../errors/pipeline-error';
import { chunkBySize, recordBytes } from '../kafka/record-size';

/** Kafka headers are small metadata, not a log: the error message is cut to about 1 KB. */
const MAX_ERROR_LENGTH = 1024;

/**
 * Dead letters per produce request, by size: well under the broker's default `message.max.bytes`
 * (1 MiB), which bounds the record batch of one partition. A batch of poison records read in one
 * fetch, plus their diagnostic headers, can be larger than the fetch was; sent as one batch it
 * would be refused (MESSAGE_TOO_LARGE) on every retry and stall the partition. A single letter
 * larger than this goes alone; the dead-letter topics allow 2 MiB records (TopicCatalogue).
 */
const MAX_DEAD_LETTER_REQUEST_BYTES = 512 * 1024;

/**
 * A letter heavier than this (uncompressed) goes zstd-compressed, whatever KAFKA_COMPRESSION says.
 * Its original can only have arrived compressed (the source topic takes 1 MiB batches): a 3 MiB
 * value that zstd shrank to kilobytes is legal there, and sent plain, its letter would be refused
 * by the dead-letter topic on every retry, stalling the partition.
 */
const COMPRESS_LETTERS_OVER_BYTES = 1024 * 1024;

export interface DeadLetter {
  readonly topic: string;
  readonly partition: number;
  readonly message: KafkaMessage;
  readonly error: string;
  readonly errorClass: ErrorClass;
  readonly attempts: number;
  /** A record batch the consumer could not decode: the letter names its offsets, it has no record. */
  readonly batch?: UndecodableBatch;
}

/** The original key, value and headers, plus the diagnostic headers the Kafka literature uses. */
export function deadLetterHeaders(letter: DeadLetter, consumerGroup: string, failedAt: Date): IHeaders {
  const headers: IHeaders = { ...(letter.message.headers ?? {}) };
  headers[DeadLetterHeaders.originalTopic] = letter.topic;
  headers[DeadLetterHeaders.originalPartition] = String(letter.partition);
  headers[DeadLetterHeaders.originalOffset] = letter.batch?.firstOffset ?? letter.message.offset;
  if (letter.batch !== undefined) {
    headers[DeadLetterHeaders.originalLastOffset] = letter.batch.lastOffset;
    headers[DeadLetterHeaders.errorCode] = UNDECODABLE_BATCH;
  }
  headers[DeadLetterHeaders.error] = truncate(letter.error, MAX_ERROR_LENGTH);
  headers[DeadLetterHeaders.errorClass] = letter.errorClass;
  headers[DeadLetterHeaders.attempts] = String(letter.attempts);
  headers[DeadLetterHeaders.failedAt] = failedAt.toISOString();
  headers[DeadLetterHeaders.consumerGroup] = consumerGroup;
  return headers;
}

/**
 * Produces dead letters with the idempotent producer and acks from every in-sync replica. The
 * caller commits the original offset only after `send` resolves: a dead letter is never lost,
 * though a crash between the two can write it twice.
 */
export class DeadLetterPublisher {
  private readonly producer: Producer;
  private connected: Promise<void> | undefined;
  private readonly compression: CompressionTypes;

  constructor(
    kafka: Kafka,
    private readonly deadLetterTopic: string,
    private readonly consumerGroup: string,
    compression: CompressionName = 'none',
  ) {
    this.compression = CompressionTypeOf[compression];
    // Bounded retries (about a minute): a send that cannot succeed (its topic is gone, the broker
    // refuses it) fails the batch, which the supervisor logs, counts and restarts from the last
    // commit, instead of hanging inside the commit step while the member looks healthy. The
    // offset never moves past a failure whose dead letter was not acknowledged.
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      retry: { retries: 6, initialRetryTime: 300, maxRetryTime: 10_000 },
      // The original key lands where Java clients (and the relay) would put it.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  connect(): Promise<void> {
    // A failed connect is not cached: the next send tries again.
    this.connected ??= this.producer.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw error;
    });
    return this.connected;
  }

  async send(letters: readonly DeadLetter[]): Promise<void> {
    if (letters.length === 0) return;
    await this.connect();
    const failedAt = new Date();
    const messages = letters.map((letter): Message => ({
      key: letter.message.key,
      value: letter.message.value,
      headers: deadLetterHeaders(letter, this.consumerGroup, failedAt),
    }));
    try {
      // One request after the other: a partition's dead letters keep the order of the originals.
      for (const chunk of chunkBySize(messages, recordBytes, MAX_DEAD_LETTER_REQUEST_BYTES)) {
        const heavy = chunk.length === 1 && recordBytes(chunk[0]!) > COMPRESS_LETTERS_OVER_BYTES;
        await this.producer.send({
          topic: this.deadLetterTopic,
          acks: -1,
          compression: heavy ? CompressionTypes.ZSTD : this.compression,
          messages: chunk,
        });
      }
    } catch (error) {
      // The next send starts a new idempotent session: a request that timed out may still have
      // been written, and reusing its sequence numbers for other letters would drop them.
      await this.disconnect().catch(() => undefined);
      throw new Error(
        `dead letters not written to ${this.deadLetterTopic} (${letters.length}): ${messageOf(error)}`,
        { cause: error },
      );
    }
  }

  async disconnect(): Promise<void> {
    if (this.connected === undefined) return;
    this.connected = undefined;
    await this.producer.disconnect();
  }
}

const truncate = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

/**
 * Counts letters that were sent: the consumer's counter and `pipeline_events_dead_lettered_total`
 * (`stage="consumer"`) per topic, declared type and error class. Never throws: the letters are durable already.
 */
export function countDeadLetters(
  letters: readonly DeadLetter[],
  {
    contracts,
    counters,
    logger,
  }: { contracts: EventContracts; counters: ConsumerCounters; logger: LoggerService },
): void {
  counters.deadLettered += letters.length;
  try {
    for (const letter of letters) {
      if (letter.batch !== undefined) PipelineMetrics.undecodableBatches.inc({ topic: letter.topic });
      // Only declared types become label values, so garbage cannot create series without bound.
      const type = headerValue(letter.message.headers, EventHeaders.type);
      PipelineMetrics.eventsDeadLettered.inc({
        topic: letter.topic,
        type: type !== undefined && contracts.isDeclaredFor(letter.topic, type) ? type : 'undeclared',
        error_class: letter.errorClass,
        stage: 'consumer',
      });
    }
  } catch (error) {
    logger.error(`recording metrics threw: ${messageOf(error)}`);
  }
}
