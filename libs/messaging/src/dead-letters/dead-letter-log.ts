import type { LoggerService } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import { contextFromHeaders, withLogContext, type LogContext } from '@pipeline/observability';
import { DeadLetterHeaders, EventHeaders, headerValue } from '@pipeline/contracts';
import type { KafkaMessage } from 'kafkajs';
import { orderIdOf } from '../handlers/event-handlers';

/**
 * Logs each record of the service's dead-letter topic at WARN with its diagnostic headers: the
 * dead-letter topic is where incidents surface, so every record must be seen by a person. The
 * service's own consumer group reads it beside its other topics: no second group for it.
 */
export function logDeadLetter(
  logger: LoggerService,
  topic: string,
  partition: number,
  message: KafkaMessage,
): void {
  const header = (name: string) => headerValue(message.headers, name) ?? '-';
  // The record keeps the trace context and ids of the event that failed: the line joins its trace.
  const fields: LogContext = {
    ...(headerValue(message.headers, EventHeaders.id) ? { event_id: header(EventHeaders.id) } : {}),
    ...(headerValue(message.headers, EventHeaders.type) ? { event_type: header(EventHeaders.type) } : {}),
    ...orderIdFromValue(message.value),
  };
  const log = () =>
    void logger.warn(
      `dead letter ${topic}/${partition}@${message.offset}: ` +
        `${EventHeaders.type}=${header(EventHeaders.type)} ${EventHeaders.id}=${header(EventHeaders.id)} ` +
        Object.values(DeadLetterHeaders)
          .map((name) => `${name}=${JSON.stringify(header(name))}`)
          .join(' '),
    );
  context.with(contextFromHeaders(message.headers), () => withLogContext(fields, log));
}

/** The order id of a saga event's payload, when the value is JSON that has one. */
function orderIdFromValue(value: Buffer | null): Pick<LogContext, 'order_id'> {
  if (value === null || value.length > 65_536) return {};
  try {
    const orderId = orderIdOf(JSON.parse(value.toString('utf8')));
    return orderId === undefined ? {} : { order_id: orderId };
  } catch {
    return {};
  }
}
