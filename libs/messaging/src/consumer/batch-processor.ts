import type { LoggerService } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import { EventHeaders } from '@pipeline/contracts';
import { PipelineMetrics } from '@pipeline/observability';
import { messageOf } from '../errors/message-of';
import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import { headerValue } from '../envelope/event-envelope';
import { contextFromHeaders } from '../tracing/messaging-spans';
import type { ConsumerCounters } from './consumer-stats';
import type { DeadLetter, DeadLetterPublisher } from './dead-letter';
import type { EventContracts } from './event-contracts';
import type { BatchControl, EventRunner, PendingEvent } from './event-runner';
import { triageRecord } from './record-triage';

export interface BatchProcessorDeps {
  readonly runner: EventRunner;
  readonly contracts: EventContracts;
  readonly deadLetters: DeadLetterPublisher;
  readonly counters: ConsumerCounters;
  readonly logger: LoggerService;
  readonly heartbeatIntervalMs: number;
  readonly maxRecordsPerTransaction: number;
  hasHandler(type: string): boolean;
}

/**
 * Processes one kafkajs batch (one partition) chunk by chunk. A chunk's offset is committed only
 * after its transaction committed and its dead letters were acknowledged, so a crash at any point
 * means redelivery, which the inbox makes harmless. Between chunks it stops as soon as the
 * partition is revoked or the consumer is stopping, after committing what it finished.
 */
export class BatchProcessor {
  constructor(private readonly deps: BatchProcessorDeps) {}

  async process(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const keepAlive = new KeepAlive(payload, this.deps.heartbeatIntervalMs);
    const control: BatchControl = {
      heartbeat: () => keepAlive.beat(),
      canContinue: () => payload.isRunning() && !payload.isStale() && keepAlive.error === undefined,
    };
    try {
      for (let start = 0; start < batch.messages.length; start += this.deps.maxRecordsPerTransaction) {
        if (!control.canContinue()) break;
        const chunk = batch.messages.slice(start, start + this.deps.maxRecordsPerTransaction);
        const done = await this.processChunk(batch.topic, batch.partition, chunk, control);
        if (done > 0) await this.commit(payload, chunk[done - 1]!.offset);
        if (done < chunk.length) break;
      }
    } finally {
      keepAlive.stop();
    }
    // A rebalance was announced: hand the error to kafkajs, which rejoins the group.
    if (keepAlive.error !== undefined) throw keepAlive.error;
  }

  /** Returns how many records of the chunk (from its start) are done. */
  private async processChunk(
    topic: string,
    partition: number,
    chunk: readonly KafkaMessage[],
    control: BatchControl,
  ): Promise<number> {
    const { contracts, counters, logger } = this.deps;
    const poison: (DeadLetter & { index: number })[] = [];
    const skipped: { index: number; type: string }[] = [];
    const events: PendingEvent[] = [];
    for (const [index, message] of chunk.entries()) {
      const triage = triageRecord(topic, message, contracts, (type) => this.deps.hasHandler(type));
      if (triage.kind === 'poison') {
        context.with(
          contextFromHeaders(message.headers),
          () => void logger.warn(`poison record ${topic}/${partition}@${message.offset}: ${triage.reason}`),
        );
        poison.push({
          index,
          topic,
          partition,
          message,
          error: triage.reason,
          errorClass: 'fatal',
          attempts: 1,
        });
      } else if (triage.kind === 'unhandled') {
        skipped.push({ index, type: triage.type });
      } else {
        const position = { topic, partition, offset: message.offset, key: message.key?.toString() ?? null };
        events.push({ index, message, position, metadata: triage.metadata, payload: triage.payload });
      }
    }
    const result = await this.deps.runner.run(events, control);
    const done = result.stoppedAt === undefined ? chunk.length : events[result.stoppedAt]!.index;
    const letters = [...poison.filter((letter) => letter.index < done), ...result.letters].sort((a, b) =>
      Number(BigInt(a.message.offset) - BigInt(b.message.offset)),
    );
    await this.deps.deadLetters.send(letters);
    counters.deadLettered += letters.length;
    for (const { index, type } of skipped)
      if (index < done) counters.skippedByType[type] = (counters.skippedByType[type] ?? 0) + 1;
    // The dead letters are acknowledged and the offset not yet committed: metrics cannot be
    // allowed to fail the chunk here (its dead letters would be written a second time).
    try {
      for (const letter of letters) {
        // A poison record's type is whatever its producer wrote: only declared types become label
        // values, so garbage cannot create series without bound.
        const type = headerValue(letter.message.headers, EventHeaders.type);
        PipelineMetrics.eventsDeadLettered.inc({
          topic,
          type: type !== undefined && contracts.isDeclaredFor(topic, type) ? type : 'undeclared',
          error_class: letter.errorClass,
        });
      }
      for (const { index, type } of skipped)
        if (index < done) PipelineMetrics.eventsSkipped.inc({ topic, type });
    } catch (error) {
      logger.error(`recording metrics threw: ${messageOf(error)}`);
    }
    return done;
  }

  private async commit(payload: EachBatchPayload, lastOffset: string): Promise<void> {
    const { topic, partition } = payload.batch;
    payload.resolveOffset(lastOffset);
    const next = (BigInt(lastOffset) + 1n).toString();
    await payload.commitOffsetsIfNecessary({
      topics: [{ topic, partitions: [{ partition, offset: next }] }],
    });
  }
}

/**
 * Heartbeats on a timer while a batch is processed, so a slow transaction or a retry backoff does
 * not get the member evicted. kafkajs throttles the calls to its heartbeat interval. A heartbeat
 * that fails (a rebalance started) is remembered: processing stops at the next boundary.
 */
class KeepAlive {
  error: Error | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly payload: EachBatchPayload,
    intervalMs: number,
  ) {
    this.timer = setInterval(() => void this.beat().catch(() => undefined), intervalMs);
  }

  async beat(): Promise<void> {
    try {
      await this.payload.heartbeat();
    } catch (error) {
      this.error ??= error instanceof Error ? error : new Error(String(error));
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
