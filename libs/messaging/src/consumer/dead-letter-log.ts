import type { LoggerService } from '@nestjs/common';
import { DeadLetterHeaders, EventHeaders } from '@pipeline/contracts';
import type { EachMessagePayload } from 'kafkajs';
import { headerValue } from '../envelope/event-envelope';

/**
 * Logs each record of the service's dead-letter topic at WARN with its diagnostic headers: the
 * dead-letter topic is where incidents surface, so every record must be seen by a person.
 */
export function logDeadLetter(
  logger: LoggerService,
  { topic, partition, message }: EachMessagePayload,
): Promise<void> {
  const header = (name: string) => headerValue(message.headers, name) ?? '-';
  logger.warn(
    `dead letter ${topic}/${partition}@${message.offset}: ` +
      `${EventHeaders.type}=${header(EventHeaders.type)} ${EventHeaders.id}=${header(EventHeaders.id)} ` +
      Object.values(DeadLetterHeaders)
        .map((name) => `${name}=${JSON.stringify(header(name))}`)
        .join(' '),
  );
  return Promise.resolve();
}
