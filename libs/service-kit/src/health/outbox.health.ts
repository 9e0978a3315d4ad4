import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { OutboxRelayService, queryBacklog } from '@pipeline/outbox-relay';
import { DATABASE, type DatabaseClient } from '../database/database.tokens';

/**
 * Reports the outbox backlog (rows waiting, age of the oldest) and whether this instance's relay
 * is the publishing leader. Informational: a backlog never makes a service unready, because the
 * rows are safe in the database and the relay catches up once the broker is back.
 */
@Injectable()
export class OutboxHealthIndicator {
  constructor(
    @Inject(DATABASE) private readonly database: DatabaseClient,
    private readonly outbox: OutboxRelayService,
    private readonly health: HealthIndicatorService,
  ) {}

  async isHealthy(key = 'outbox'): Promise<HealthIndicatorResult> {
    const indicator = this.health.check(key);
    const leader = this.outbox.relay.isLeader();
    try {
      const backlog = await queryBacklog(this.database, this.outbox.relay.publishedIds());
      return indicator.up({ rows: backlog.rows, oldestAgeMs: backlog.oldestAgeMs, leader });
    } catch (error) {
      // The database check reports the outage; the backlog is just unknown meanwhile.
      return indicator.up({
        rows: null,
        leader,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
