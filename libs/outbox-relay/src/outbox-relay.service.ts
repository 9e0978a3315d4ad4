import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import type { CompressionName } from '@pipeline/kafka-codecs';
import { KAFKA_CLIENT } from '@pipeline/messaging';
import { OutboxRelay } from './outbox-relay';
import type { OutboxAcks, OutboxRelayOptions } from './outbox-relay.options';

export const OUTBOX_RELAY_OPTIONS = Symbol('OUTBOX_RELAY_OPTIONS');

export interface OutboxRelayServiceOptions {
  readonly service: string;
  readonly databaseUrl: string;
  readonly batchSize?: number;
  readonly maxBatchBytes?: number;
  readonly pollIntervalMs?: number;
  readonly acks?: OutboxAcks;
  readonly compression?: CompressionName;
  readonly topicPrefix?: string;
  readonly onPublished?: OutboxRelayOptions['onPublished'];
}

/**
 * Runs the service's outbox relay for the lifetime of the application. It stops on shutdown
 * after the consumers (Nest closes microservices first), so events their last batch wrote to
 * the outbox are still published before the process exits.
 */
@Injectable()
export class OutboxRelayService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly relay: OutboxRelay;

  constructor(
    @Inject(KAFKA_CLIENT) kafka: Kafka,
    @Inject(OUTBOX_RELAY_OPTIONS) options: OutboxRelayServiceOptions,
  ) {
    this.relay = new OutboxRelay({ ...options, kafka, logger: new Logger('OutboxRelay') });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.relay.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay.stop();
  }
}
