import { performance } from 'node:perf_hooks';
import type { Span } from '@opentelemetry/api';
import {
  PipelineMetrics,
  contextFromHeaders,
  endSpan,
  isSampled,
  spanHeaders,
  startSendSpan,
} from '@pipeline/observability';
import type { CompressionTypes, Producer, RecordMetadata, TopicMessages } from 'kafkajs';
import { toTopicMessages, type OutboxRow } from './outbox-table';
import { attempt } from './relay-failure';

export interface SentRows {
  /** The rows as sent: with their send span's trace context. */
  readonly traced: readonly OutboxRow[];
  readonly topicMessages: readonly TopicMessages[];
  readonly sent: readonly RecordMetadata[];
  /** From `sendBatch` to the broker's acknowledgement. */
  readonly latencyMs: number;
}

/** How the relay's records are sent: the acknowledgement it waits for, the batches' codec. */
export interface Delivery {
  readonly acks: -1 | 1;
  readonly compression: CompressionTypes;
}

/** One `sendBatch` of `rows`, each row of a sampled trace with a `send <topic>` span. */
export async function sendRows(
  producer: Producer,
  rows: readonly OutboxRow[],
  delivery: Delivery,
  topicPrefix = '',
): Promise<SentRows> {
  const { traced, spans } = startSendSpans(rows, topicPrefix);
  const topicMessages = toTopicMessages(traced, topicPrefix);
  const sentAt = performance.now();
  try {
    const sent = await attempt('broker', () => producer.sendBatch({ ...delivery, topicMessages }));
    const latencyMs = performance.now() - sentAt;
    for (const span of spans) endSpan(span);
    return { traced, topicMessages, sent, latencyMs };
  } catch (error) {
    for (const span of spans) endSpan(span, { error });
    throw error;
  }
}

/** The relay's metrics of one acknowledged send. */
export function countPublished(rows: readonly OutboxRow[], latencyMs: number): void {
  PipelineMetrics.relayBatchSize.observe(rows.length);
  PipelineMetrics.relayPublishDuration.observe(latencyMs / 1000);
  const perTopic = new Map<string, number>();
  for (const row of rows) perTopic.set(row.topic, (perTopic.get(row.topic) ?? 0) + 1);
  for (const [topic, count] of perTopic) PipelineMetrics.relayPublished.inc({ topic }, count);
}

/**
 * One `send <topic>` span per row of a sampled trace, continuing the trace stored with the row;
 * the record carries the span's own context so the consumer's span becomes its child. A row of
 * a trace that is not sampled goes out with the trace context it was written with: no span.
 */
function startSendSpans(
  rows: readonly OutboxRow[],
  topicPrefix: string,
): { traced: OutboxRow[]; spans: Span[] } {
  const spans: Span[] = [];
  const traced = rows.map((row) => {
    if (!isSampled(traceparentOf(row))) return row;
    const span = startSendSpan(contextFromHeaders(row.headers), {
      topic: topicPrefix + row.topic,
      eventId: row.event_id,
      eventType: row.type,
      key: row.key,
      tombstone: row.payload === null,
    });
    spans.push(span);
    return { ...row, headers: { ...row.headers, ...spanHeaders(span) } };
  });
  return { traced, spans };
}

const traceparentOf = (row: OutboxRow): string | undefined => {
  const value = row.headers?.['traceparent'];
  return typeof value === 'string' ? value : undefined;
};
