import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { Admin } from 'kafkajs';
import { KAFKA_ADMIN } from '@pipeline/messaging';

/** Ready only when a broker answers a metadata request within the timeout. */
@Injectable()
export class KafkaHealthIndicator {
  constructor(
    @Inject(KAFKA_ADMIN) private readonly admin: Admin,
    private readonly health: HealthIndicatorService,
  ) {}

  async isHealthy(key = 'kafka', timeoutMs = 2_000): Promise<HealthIndicatorResult> {
    const indicator = this.health.check(key);
    try {
      const cluster = await withTimeout(this.admin.describeCluster(), timeoutMs, 'Kafka');
      return indicator.up({ brokers: cluster.brokers.length, controller: cluster.controller });
    } catch (error) {
      return indicator.down({ message: error instanceof Error ? error.message : String(error) });
    }
  }
}

/** Rejects with "no answer from <what> within <ms> ms" when `promise` takes longer. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
