import 'reflect-metadata';
import type { DynamicModule, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { z } from 'zod';
import { KAFKA_EVENT_SERVER, type KafkaEventServer } from '@pipeline/messaging';
import { EventErrorFilter } from './event-error.filter';
import { createServiceLogger, initMetrics } from '@pipeline/observability';
import type { BaseConfig } from '../config/base-config.schema';
import { ConfigError, loadConfig } from '../config/load-config';
import { configureHttpServer, createHttpAdapter } from '../http/http-server';

export interface RunServiceOptions<Schema extends z.ZodType<BaseConfig>> {
  /** Short service name: `order`, `payment`, ... */
  readonly service: string;
  readonly configSchema: Schema;
  readonly appModule: (config: z.output<Schema>) => DynamicModule;
}

/**
 * Starts a service: validate the environment, build the Nest application, listen.
 * A bad environment prints one line naming the variable and exits with status 1.
 */
export async function runService<Schema extends z.ZodType<BaseConfig>>(
  options: RunServiceOptions<Schema>,
): Promise<void> {
  let config: z.output<Schema>;
  try {
    config = loadConfig(options.configSchema);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${options.service}-service: ${error.message}\n`);
    process.exit(1);
  }

  const service = `${options.service}-service`;
  initMetrics(service);
  const logger = createServiceLogger({
    service,
    level: config.LOG_LEVEL,
    json: config.LOG_FORMAT === 'json',
  });
  routeProcessWarnings(logger);
  try {
    const app = await NestFactory.create<NestFastifyApplication>(
      options.appModule(config),
      createHttpAdapter(),
      { logger, bufferLogs: true, bodyParser: false },
    );
    // Before init(), which registers the routes: metrics, trace header, route spans, JSON bodies.
    configureHttpServer(app.getHttpAdapter().getInstance());
    app.enableShutdownHooks();
    // Before init(), which binds the HTTP routes to the global filters of that moment: event
    // handlers' errors reach the failure policy unchanged (fatal vs retriable), and an HTTP
    // request the database cannot serve gets 503 with Retry-After instead of 500.
    app.useGlobalFilters(new EventErrorFilter(app.getHttpAdapter()));
    // init() first: module hooks connect the database and provision the topics the consumer
    // subscribes to. Kafka consumption is a Nest microservice (custom transport) in this process.
    await app.init();
    app.connectMicroservice(
      { strategy: app.get<KafkaEventServer>(KAFKA_EVENT_SERVER) },
      { inheritAppConfig: true },
    );
    await app.startAllMicroservices();
    await app.listen(config.PORT, '0.0.0.0');
    logger.log(`listening on http://127.0.0.1:${config.PORT}`, 'Bootstrap');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.fatal(
      `start-up failed: ${message}`,
      error instanceof Error ? error.stack : undefined,
      'Bootstrap',
    );
    process.exit(1);
  }
}

/**
 * Node prints process warnings as plain text on stderr; send them through the logger so every
 * line stays JSON. (kafkajs's TimeoutNegativeWarning is gone: patches/kafkajs+2.2.4.patch.)
 */
function routeProcessWarnings(logger: LoggerService): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    logger.warn(`${warning.name}: ${warning.message}`, 'Process');
  });
}
