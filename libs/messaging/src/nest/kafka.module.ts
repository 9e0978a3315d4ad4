import {
  type DynamicModule,
  Inject,
  Logger,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { Admin, Kafka } from 'kafkajs';
import { TopicCatalogue } from '@pipeline/contracts';
import { provisionTopics, type ProvisioningOptions } from '../topics/provision-topics';
import { KafkaHealthIndicator } from './kafka.health';
import { createKafka, type KafkaConnectionOptions } from '../kafka/kafka.options';
import { KAFKA_ADMIN, KAFKA_CLIENT, KAFKA_MODULE_OPTIONS } from '../kafka/kafka.tokens';

export interface KafkaModuleOptions extends KafkaConnectionOptions {
  /** When set, the topics the contracts declare are created at start-up (idempotent). */
  readonly provisioning?: ProvisioningOptions;
  /** Prepended to every topic name (see withTopicPrefix). */
  readonly topicPrefix?: string;
}

@Module({})
export class KafkaModule implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Kafka');

  constructor(
    @Inject(KAFKA_ADMIN) private readonly admin: Admin,
    @Inject(KAFKA_MODULE_OPTIONS) private readonly options: KafkaModuleOptions,
  ) {}

  static forRoot(options: KafkaModuleOptions): DynamicModule {
    return {
      module: KafkaModule,
      global: true,
      imports: [TerminusModule],
      providers: [
        { provide: KAFKA_MODULE_OPTIONS, useValue: options },
        { provide: KAFKA_CLIENT, useFactory: (): Kafka => createKafka(options) },
        { provide: KAFKA_ADMIN, inject: [KAFKA_CLIENT], useFactory: (kafka: Kafka): Admin => kafka.admin() },
        KafkaHealthIndicator,
      ],
      exports: [KAFKA_CLIENT, KAFKA_ADMIN, KafkaHealthIndicator],
    };
  }

  async onModuleInit(): Promise<void> {
    await this.admin.connect();
    const { provisioning } = this.options;
    if (provisioning) {
      const prefix = this.options.topicPrefix ?? '';
      const specs = TopicCatalogue.map((spec) => ({ ...spec, name: prefix + spec.name }));
      const result = await provisionTopics(this.admin, specs, provisioning);
      if (result.created.length > 0) this.logger.log(`created topics: ${result.created.join(', ')}`);
    }
    this.logger.log(`connected to ${this.options.brokers.join(',')}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.admin.disconnect();
    this.logger.log('disconnected');
  }
}
