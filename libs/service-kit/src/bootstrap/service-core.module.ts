import { type DynamicModule, Logger, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { PrismaPg } from '@prisma/adapter-pg';
import type { Kafka } from 'kafkajs';
import {
  ConsumerHealthIndicator,
  KAFKA_CLIENT,
  KAFKA_EVENT_SERVER,
  KafkaEventServer,
  KafkaModule,
  OUTBOX_RELAY_OPTIONS,
  OutboxRelayService,
  PIPELINE_CONTRACTS,
  withTopicPrefix,
  type OutboxRelayServiceOptions,
} from '@pipeline/messaging';
import { deadLetterTopic, type ServiceName } from '@pipeline/contracts';
import type { BaseConfig } from '../config/base-config.schema';
import { DatabaseModule } from '../database/database.module';
import { DATABASE, type DatabaseClient, type PrismaClientClass } from '../database/database.tokens';
import { HealthController } from '../health/health.controller';
import { OutboxHealthIndicator } from '../health/outbox.health';
import { SERVICE_CONFIG } from './service.tokens';

export interface ServiceCoreOptions<Config extends BaseConfig> {
  /** Short service name: `order`, `payment`, ... */
  readonly service: ServiceName;
  readonly config: Config;
  /** The service's own generated PrismaClient class; the kit connects it through the pg adapter. */
  readonly prismaClient: PrismaClientClass;
  /** Topics whose events this service's `@EventPattern` handlers consume. */
  readonly consumes: readonly string[];
}

/**
 * What every service has: its typed config, its database, Kafka, the outbox relay, the event
 * consumer (inbox, retries, dead letters) and health endpoints.
 */
@Module({})
export class ServiceCoreModule {
  static forRoot<Config extends BaseConfig>(options: ServiceCoreOptions<Config>): DynamicModule {
    const { config, service } = options;
    const relayOptions: OutboxRelayServiceOptions = {
      service,
      databaseUrl: config.DATABASE_URL,
      batchSize: config.OUTBOX_BATCH_SIZE,
      lingerMs: config.OUTBOX_LINGER_MS,
      pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
      acks: config.OUTBOX_ACKS,
      topicPrefix: config.KAFKA_TOPIC_PREFIX,
    };
    const prefix = config.KAFKA_TOPIC_PREFIX;
    return {
      module: ServiceCoreModule,
      global: true,
      imports: [
        TerminusModule.forRoot({ errorLogStyle: 'json', gracefulShutdownTimeoutMs: 0 }),
        DatabaseModule.forRoot({
          createClient: () =>
            new options.prismaClient({ adapter: new PrismaPg({ connectionString: config.DATABASE_URL }) }),
        }),
        KafkaModule.forRoot({
          brokers: config.KAFKA_BROKERS,
          clientId: config.KAFKA_CLIENT_ID ?? `${service}-service`,
          provisioning: {
            partitions: config.KAFKA_TOPIC_PARTITIONS,
            replicationFactor: config.KAFKA_REPLICATION_FACTOR,
            minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
          },
          topicPrefix: prefix,
        }),
      ],
      controllers: [HealthController],
      providers: [
        { provide: SERVICE_CONFIG, useValue: config },
        { provide: OUTBOX_RELAY_OPTIONS, useValue: relayOptions },
        OutboxRelayService,
        {
          provide: KAFKA_EVENT_SERVER,
          inject: [KAFKA_CLIENT, DATABASE],
          useFactory: (kafka: Kafka, database: DatabaseClient) =>
            new KafkaEventServer({
              service,
              ...(config.KAFKA_CONSUMER_GROUP ? { groupId: config.KAFKA_CONSUMER_GROUP } : {}),
              topics: options.consumes.map((topic) => prefix + topic),
              deadLetterTopic: prefix + deadLetterTopic(service),
              contracts: withTopicPrefix(PIPELINE_CONTRACTS, prefix),
              kafka,
              database,
              retry: {
                attempts: config.CONSUMER_RETRY_ATTEMPTS,
                initialBackoffMs: config.CONSUMER_RETRY_INITIAL_BACKOFF_MS,
                maxBackoffMs: config.CONSUMER_RETRY_MAX_BACKOFF_MS,
              },
              logger: new Logger('Consumer'),
            }),
        },
        ConsumerHealthIndicator,
        OutboxHealthIndicator,
      ],
      exports: [SERVICE_CONFIG, KAFKA_EVENT_SERVER, OutboxRelayService],
    };
  }
}
