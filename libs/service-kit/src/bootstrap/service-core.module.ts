import { type DynamicModule, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { PrismaPg } from '@prisma/adapter-pg';
import { KafkaModule } from '@pipeline/messaging';
import type { BaseConfig } from '../config/base-config.schema';
import { DatabaseModule } from '../database/database.module';
import type { PrismaClientClass } from '../database/database.tokens';
import { HealthController } from '../health/health.controller';
import { SERVICE_CONFIG } from './service.tokens';

export interface ServiceCoreOptions<Config extends BaseConfig> {
  readonly service: string;
  readonly config: Config;
  /** The service's own generated PrismaClient class; the kit connects it through the pg adapter. */
  readonly prismaClient: PrismaClientClass;
}

/** What every service has: its typed config, its database, Kafka, and health endpoints. */
@Module({})
export class ServiceCoreModule {
  static forRoot<Config extends BaseConfig>(options: ServiceCoreOptions<Config>): DynamicModule {
    const { config, service } = options;
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
        }),
      ],
      controllers: [HealthController],
      providers: [{ provide: SERVICE_CONFIG, useValue: config }],
      exports: [SERVICE_CONFIG],
    };
  }
}
