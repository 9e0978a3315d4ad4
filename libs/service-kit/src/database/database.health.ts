import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { timedCheck } from '../health/timed-check';
import { DATABASE, type DatabaseClient } from './database.tokens';

@Injectable()
export class DatabaseHealthIndicator {
  constructor(
    @Inject(DATABASE) private readonly client: DatabaseClient,
    private readonly health: HealthIndicatorService,
  ) {}

  /** Down when `SELECT 1` fails or takes longer than `timeoutMs` (below the readiness probe's). */
  async isHealthy(key = 'database', timeoutMs = 2_000): Promise<HealthIndicatorResult> {
    return timedCheck(
      this.health.check(key),
      this.client.$queryRawUnsafe('SELECT 1'),
      timeoutMs,
      'the database',
    );
  }
}
