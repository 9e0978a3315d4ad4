import { Logger } from '@nestjs/common';
import { type logCreator, logLevel } from 'kafkajs';

/**
 * kafkajs warnings about choices made here on purpose, logged at debug. Bounded retries on the
 * idempotent dead-letter producer: a failed send ends its idempotent session (DeadLetterPublisher).
 */
const CHOSEN = ['Limiting retries for the idempotent producer'];

/** Routes kafkajs's own log lines through the service's logger, so every line has one format. */
export const nestLogCreator: logCreator = () => {
  const logger = new Logger('kafkajs');
  return ({ namespace, level: reported, log }) => {
    const { message, broker, error } = log as { message: string; broker?: string; error?: string };
    const level = CHOSEN.some((chosen) => message.startsWith(chosen)) ? logLevel.DEBUG : reported;
    let text = `[${namespace}] ${message}`;
    if (broker) text += ` broker=${broker}`;
    if (error) text += ` error=${error}`;
    if (level === logLevel.ERROR) logger.error(text);
    else if (level === logLevel.WARN) logger.warn(text);
    else if (level === logLevel.INFO) logger.log(text);
    else logger.debug(text);
  };
};
