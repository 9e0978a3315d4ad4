import {
  type DynamicModule,
  Inject,
  Logger,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { Admin, Kafka } from 'kafkajs';
import { createKafka, type KafkaConnectionOptions } from '../kafka/kafka.options';
import { KAFKA_ADMIN, KAFKA_CLIENT, KAFKA_MODULE_OPTIONS } from '../kafka/kafka.tokens';

/** The service's Kafka client and its admin client, connected at start-up and closed at shutdown. */
@Module({})
export class KafkaModule implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Kafka');

  constructor(
    @Inject(KAFKA_ADMIN) private readonly admin: Admin,
    @Inject(KAFKA_MODULE_OPTIONS) private readonly options: KafkaConnectionOptions,
  ) {}

  static forRoot(options: KafkaConnectionOptions): DynamicModule {
    return {
      module: KafkaModule,
      global: true,
      providers: [
        { provide: KAFKA_MODULE_OPTIONS, useValue: options },
        { provide: KAFKA_CLIENT, useFactory: (): Kafka => createKafka(options) },
        { provide: KAFKA_ADMIN, inject: [KAFKA_CLIENT], useFactory: (kafka: Kafka): Admin => kafka.admin() },
      ],
      exports: [KAFKA_CLIENT, KAFKA_ADMIN],
    };
  }

  async onModuleInit(): Promise<void> {
    await this.admin.connect();
    this.logger.log(`connected to ${this.options.brokers.join(',')}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.admin.disconnect();
    this.logger.log('disconnected');
  }
}
