import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { KafkaEventServer } from '../nest/kafka-event-server';
import { KAFKA_EVENT_SERVER } from '../kafka/messaging.tokens';

/**
 * Not ready while the service's consumer is not a running member of its group: a consumer that
 * crashed and is being restarted must not look healthy while its partitions go unprocessed.
 */
@Injectable()
export class ConsumerHealthIndicator {
  constructor(
    @Inject(KAFKA_EVENT_SERVER) private readonly server: KafkaEventServer,
    private readonly health: HealthIndicatorService,
  ) {}

  isHealthy(key = 'consumer'): HealthIndicatorResult {
    const indicator = this.health.check(key);
    const status = this.server.consumerStatus();
    const details = { state: status.state, groupId: status.groupId, topics: status.topics.join(',') };
    return status.healthy
      ? indicator.up(details)
      : indicator.down({ ...details, message: status.lastError ?? `consumer is ${status.state}` });
  }
}
