import { type DynamicModule, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { Admin, Kafka } from 'kafkajs';
import type pg from 'pg';
import {
  KAFKA_ADMIN,
  KAFKA_CLIENT,
  KAFKA_EVENT_SERVER,
  KafkaEventServer,
  KafkaModule,
} from '@pipeline/messaging';
import { sqlOver } from '@pipeline/database';
import {
  OUTBOX_RELAY_OPTIONS,
  OutboxRelayService,
  type OutboxRelayServiceOptions,
} from '@pipeline/outbox-relay';
import {
  PIPELINE_CONTRACTS,
  TopicCatalogue,
  deadLetterTopic,
  withTopicPrefix,
  type ServiceName,
} from '@pipeline/contracts';
import { shutdownTelemetry } from '@pipeline/observability';
import type { BaseConfig } from '../config/base-config.schema';
import { DatabaseModule } from '../database/database.module';
import { DATABASE_POOL, type PrismaClientClass } from '../database/database.tokens';
import { InboxPruner } from '../database/inbox-pruner';
import { ConsumerHealthIndicator } from '../health/consumer.health';
import { HealthController } from '../health/health.controller';
import { KafkaHealthIndicator } from '../health/kafka.health';
import { OutboxHealthIndicator } from '../health/outbox.health';
import { MetricsController } from '../metrics/metrics.controller';
import {
  SCRAPE_TIME_GAUGES_OPTIONS,
  ScrapeTimeGauges,
  type ScrapeTimeGaugesOptions,
} from '../metrics/scrape-time-gauges';
import { provisionTopics } from './provision-topics';
import { SERVICE_CONFIG } from './service.tokens';

const TOPICS_PROVISIONED = Symbol('TOPICS_PROVISIONED');

/** Docker stops a container 10 s after SIGTERM; the consumer and the relay need most of them. */
const TELEMETRY_FLUSH_MS = 3_000;

export interface ServiceCoreOptions<Config extends BaseConfig> {
  /** Short service name: `order`, `payment`, ... */
  readonly service: ServiceName;
  readonly config: Config;
  /** The service's own generated PrismaClient class; the kit connects it through the pg adapter. */
  readonly prismaClient: PrismaClientClass;
  /** Topics whose events this service's `@EventPattern` handlers consume. */
  readonly consumes: readonly string[];
  /** The outbox relay's `onPublished` hook: where each published event landed. */
  readonly onOutboxPublished?: OutboxRelayServiceOptions['onPublished'];
}

/**
 * What every service has: its typed config, its database, Kafka, the outbox relay, the event
 * consumer (inbox, retries, dead letters), health endpoints and `GET /metrics`.
 */
@Module({})
export class ServiceCoreModule implements OnApplicationShutdown {
  static forRoot<Config extends BaseConfig>(options: ServiceCoreOptions<Config>): DynamicModule {
    const { config, service } = options;
    const relayOptions: OutboxRelayServiceOptions = {
      service,
      databaseUrl: config.DATABASE_URL,
      batchSize: config.OUTBOX_BATCH_SIZE,
      maxBatchBytes: config.OUTBOX_MAX_BATCH_BYTES,
      pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
      acks: config.OUTBOX_ACKS,
      compression: config.KAFKA_COMPRESSION,
      topicPrefix: config.KAFKA_TOPIC_PREFIX,
      ...(options.onOutboxPublished ? { onPublished: options.onOutboxPublished } : {}),
    };
    const prefix = config.KAFKA_TOPIC_PREFIX;
    const gaugesOptions: ScrapeTimeGaugesOptions = { deadLetterTopic: prefix + deadLetterTopic(service) };
    return {
      module: ServiceCoreModule,
      global: true,
      imports: [
        TerminusModule.forRoot({ errorLogStyle: 'json', gracefulShutdownTimeoutMs: 0 }),
        DatabaseModule.forRoot({
          url: config.DATABASE_URL,
          poolSize: config.DATABASE_POOL_SIZE,
          connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
          statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
          prismaClient: options.prismaClient,
          applicationName: `${service}-service`,
        }),
        KafkaModule.forRoot({
          brokers: config.KAFKA_BROKERS,
          clientId: config.KAFKA_CLIENT_ID ?? `${service}-service`,
        }),
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: SERVICE_CONFIG, useValue: config },
        {
          // KAFKA_PROVISION_TOPICS: the contracts' topics are created before anything consumes or
          // publishes (idempotent; an existing topic is left as it is).
          provide: TOPICS_PROVISIONED,
          inject: [KAFKA_ADMIN],
          useFactory: async (admin: Admin) => {
            if (!config.KAFKA_PROVISION_TOPICS) return;
            await admin.connect();
            const specs = TopicCatalogue.map((spec) => ({ ...spec, name: prefix + spec.name }));
            const { created } = await provisionTopics(admin, specs, {
              partitions: config.KAFKA_TOPIC_PARTITIONS,
              replicationFactor: config.KAFKA_REPLICATION_FACTOR,
              minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
            });
            if (created.length > 0) new Logger('Kafka').log(`created topics: ${created.join(', ')}`);
          },
        },
        { provide: OUTBOX_RELAY_OPTIONS, useValue: relayOptions },
        OutboxRelayService,
        {
          provide: KAFKA_EVENT_SERVER,
          inject: [KAFKA_CLIENT, KAFKA_ADMIN, DATABASE_POOL],
          useFactory: (kafka: Kafka, admin: Admin, pool: pg.Pool) =>
            new KafkaEventServer({
              service,
              ...(config.KAFKA_CONSUMER_GROUP ? { groupId: config.KAFKA_CONSUMER_GROUP } : {}),
              topics: options.consumes.map((topic) => prefix + topic),
              deadLetterTopic: prefix + deadLetterTopic(service),
              contracts: withTopicPrefix(PIPELINE_CONTRACTS, prefix),
              kafka,
              admin,
              pool,
              fetchMinBytes: config.KAFKA_FETCH_MIN_BYTES,
              fetchMaxWaitMs: config.KAFKA_FETCH_MAX_WAIT_MS,
              maxEventsPerTransaction: config.CONSUMER_MAX_EVENTS_PER_TRANSACTION,
              busyLingerMs: config.CONSUMER_BUSY_LINGER_MS,
              undecodableBatches: config.CONSUMER_UNDECODABLE_BATCH,
              compression: config.KAFKA_COMPRESSION,
              commitIntervalMs: config.CONSUMER_COMMIT_INTERVAL_MS,
              retry: {
                attempts: config.CONSUMER_RETRY_ATTEMPTS,
                initialBackoffMs: config.CONSUMER_RETRY_INITIAL_BACKOFF_MS,
                maxBackoffMs: config.CONSUMER_RETRY_MAX_BACKOFF_MS,
                outageWindowMs: config.CONSUMER_RETRY_OUTAGE_WINDOW_MS,
              },
              logger: new Logger('Consumer'),
            }),
        },
        {
          provide: InboxPruner,
          inject: [DATABASE_POOL],
          useFactory: (pool: pg.Pool) => {
            const pruner = new InboxPruner({
              sql: sqlOver(pool),
              retentionMs: config.INBOX_RETENTION_MS,
              intervalMs: config.INBOX_PRUNE_INTERVAL_MS,
              logger: new Logger('InboxPruner'),
            });
            // Nest calls these hooks on a factory's result too; beforeApplicationShutdown runs
            // before DatabaseModule ends the pool, so the pass in flight finishes first.
            return Object.assign(pruner, {
              onApplicationBootstrap: () => pruner.start(),
              beforeApplicationShutdown: () => pruner.stop(),
            });
          },
        },
        KafkaHealthIndicator,
        ConsumerHealthIndicator,
        OutboxHealthIndicator,
        { provide: SCRAPE_TIME_GAUGES_OPTIONS, useValue: gaugesOptions },
        ScrapeTimeGauges,
      ],
      exports: [SERVICE_CONFIG, KAFKA_EVENT_SERVER, OutboxRelayService],
    };
  }

  /**
   * Flushes the spans still buffered. Nest calls this after closing the consumer and after this
   * module's providers (the outbox relay's last batch), so their spans are exported too. An
   * unreachable trace backend costs at most a few seconds and never fails the shutdown.
   */
  async onApplicationShutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`not done within ${TELEMETRY_FLUSH_MS} ms`)),
        TELEMETRY_FLUSH_MS,
      );
    });
    try {
      await Promise.race([shutdownTelemetry(), timeout]);
    } catch (error) {
      new Logger('Telemetry').warn(
        `spans not flushed: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      clearTimeout(timer);
    }
  }
}
