import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { SERVICE_CONFIG } from '../bootstrap/service.tokens';
import type { BaseConfig } from '../config/base-config.schema';
import { DatabaseHealthIndicator } from '../database/database.health';
import { ConsumerHealthIndicator } from './consumer.health';
import { KafkaHealthIndicator } from './kafka.health';
import { OutboxHealthIndicator } from './outbox.health';

/**
 * What each endpoint means, and which probe uses it: docs/reliability.md#health-endpoints. No
 * outage of a dependency fails liveness (restarting cures none of them), and none but the
 * database's fails readiness: with Kafka away, requests still land in the database and the outbox.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: DatabaseHealthIndicator,
    private readonly kafka: KafkaHealthIndicator,
    private readonly consumer: ConsumerHealthIndicator,
    private readonly outbox: OutboxHealthIndicator,
    @Inject(SERVICE_CONFIG) private readonly config: BaseConfig,
  ) {}

  /** Not wedged: no partition of this member has had lag and no progress for HEALTH_STALL_TIMEOUT_MS. */
  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([() => this.consumer.isLive(this.config.HEALTH_STALL_TIMEOUT_MS)]);
  }

  /** Can take its HTTP traffic: its database answers. The outbox backlog is reported, never fails it. */
  @Get('ready')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([() => this.database.isHealthy(), () => this.outbox.isHealthy()]);
  }

  /** The event side, for people and alerts (no probe): a broker answers, the consumer is a member of its group. */
  @Get('consumer')
  @HealthCheck()
  consumerHealth(): Promise<HealthCheckResult> {
    return this.health.check([() => this.kafka.isHealthy(), () => this.consumer.isHealthy()]);
  }
}
