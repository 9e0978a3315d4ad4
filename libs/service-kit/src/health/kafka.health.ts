import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { Admin } from 'kafkajs';
import { KAFKA_ADMIN } from '@pipeline/messaging';
import { timedCheck } from './timed-check';

/** Ready only when a broker answers a metadata request within the timeout. */
@Injectable()
export class KafkaHealthIndicator {
  constructor(
    @Inject(KAFKA_ADMIN) private readonly admin: Admin,
    private readonly health: HealthIndicatorService,
  ) {}

  async isHealthy(key = 'kafka', timeoutMs = 2_000): Promise<HealthIndicatorResult> {
    return timedCheck(
      this.health.check(key),
      this.admin.describeCluster(),
      timeoutMs,
      'Kafka',
      (cluster) => ({
        brokers: cluster.brokers.length,
        controller: cluster.controller,
      }),
    );
  }
}
