import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { withTimeout } from '../health/kafka.health';
import { DATABASE, type DatabaseClient } from './database.tokens';

@Injectable()
export class DatabaseHealthIndicator {
  constructor(
    @Inject(DATABASE) private readonly client: DatabaseClient,
    private readonly health: HealthIndicatorService,
  ) {}

  /** Down when `SELECT 1` fails or takes longer than `timeoutMs` (below the readiness probe's). */
  async isHealthy(key = 'database', timeoutMs = 2_000): Promise<HealthIndicatorResult> {
    const indicator = this.health.check(key);
    try {
      await withTimeout(this.client.$queryRawUnsafe('SELECT 1'), timeoutMs, 'the database');
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: error instanceof Error ? error.message : String(error) });
    }
  }
}
