import { DeadLetterHeaders, RECORD_TOO_LARGE, RELAY_STAGE } from '@pipeline/contracts';
import { PipelineMetrics } from '@pipeline/observability';
import type { IHeaders, Message } from 'kafkajs';
import { recordBytes } from '@pipeline/messaging';
import { toMessage, type OutboxRow } from './outbox-table';

export interface RecordTooLarge {
  /** The topic as published (with the relay's prefix). */
  readonly topic: string;
  readonly recordBytes: number;
  readonly limitBytes: number;
  /** The broker's refusal, when it was the broker that said so. */
  readonly brokerError?: string;
}

/**
 * The dead letter of a row no send can carry: the original key and headers, the diagnostic
 * headers of the consumers' letters (`deadLetterHeaders`) where they apply, and the relay's own
 * (`failed_stage=relay`, `error_code=RecordTooLarge`, the size and the limit). The value goes
 * along only if the letter stays within the limit; otherwise it is left out and
 * `value_omitted=true` says so: the dead-letter topic must not stall on it in turn.
 */
export function relayDeadLetter(row: OutboxRow, tooLarge: RecordTooLarge, failedAt = new Date()): Message {
  const { topic, limitBytes } = tooLarge;
  const reason =
    tooLarge.brokerError ??
    `record of ${tooLarge.recordBytes} bytes is over the relay's limit of ${limitBytes} (OUTBOX_MAX_BATCH_BYTES)`;
  const headers: IHeaders = {
    ...toMessage(row).headers,
    [DeadLetterHeaders.originalTopic]: topic,
    [DeadLetterHeaders.error]: `${RECORD_TOO_LARGE}: ${reason}`.slice(0, 1024),
    [DeadLetterHeaders.errorClass]: 'fatal',
    [DeadLetterHeaders.failedAt]: failedAt.toISOString(),
    [DeadLetterHeaders.stage]: RELAY_STAGE,
    [DeadLetterHeaders.errorCode]: RECORD_TOO_LARGE,
    [DeadLetterHeaders.recordBytes]: String(tooLarge.recordBytes),
    [DeadLetterHeaders.limitBytes]: String(limitBytes),
  };
  const letter: Message = { key: row.key, value: row.payload, headers };
  if (recordBytes(letter) <= limitBytes) return letter;
  return { key: row.key, value: null, headers: { ...headers, [DeadLetterHeaders.valueOmitted]: 'true' } };
}

/** `pipeline_events_dead_lettered_total{stage="relay"}`: the row's type is the service's own. */
export const countRelayDeadLetter = (row: OutboxRow, topic: string): void =>
  void PipelineMetrics.eventsDeadLettered.inc({
    topic,
    type: row.type,
    error_class: 'fatal',
    stage: RELAY_STAGE,
  });
