import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { OutboxRelayService } from '../outbox/outbox-relay.service';

/**
 * Reports the outbox backlog (rows waiting, age of the oldest) and whether this instance's relay
 * is the publishing leader. Informational: a backlog never makes a service unready, because the
 * rows are safe in the database and the relay catches up once the broker is back.
 */
@Injectable()
export class OutboxHealthIndicator {
  constructor(
    private readonly outbox: OutboxRelayService,
    private readonly health: HealthIndicatorService,
  ) {}

  async isHealthy(key = 'outbox'): Promise<HealthIndicatorResult> {
    const indicator = this.health.check(key);
    const { relay } = this.outbox;
    try {
      const backlog = await relay.backlog();
      return indicator.up({ rows: backlog.rows, oldestAgeMs: backlog.oldestAgeMs, leader: relay.isLeader() });
    } catch (error) {
      // The database check reports the outage; the backlog is just unknown meanwhile.
      return indicator.up({
        rows: null,
        leader: relay.isLeader(),
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
