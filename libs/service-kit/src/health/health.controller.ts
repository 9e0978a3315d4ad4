import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { ConsumerHealthIndicator, KafkaHealthIndicator } from '@pipeline/messaging';
import { DatabaseHealthIndicator } from '../database/database.health';
import { OutboxHealthIndicator } from './outbox.health';

@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: DatabaseHealthIndicator,
    private readonly kafka: KafkaHealthIndicator,
    private readonly consumer: ConsumerHealthIndicator,
    private readonly outbox: OutboxHealthIndicator,
  ) {}

  /** The process is up and serving HTTP; dependencies are not consulted. */
  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** Ready to take traffic: its database and a Kafka broker answer, its consumer runs. 503 otherwise. */
  @Get('ready')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([
      () => this.database.isHealthy(),
      () => this.kafka.isHealthy(),
      () => this.consumer.isHealthy(),
      () => this.outbox.isHealthy(),
    ]);
  }
}
