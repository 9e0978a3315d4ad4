import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { KAFKA_EVENT_SERVER, type KafkaEventServer } from '@pipeline/messaging';
import { withTimeout } from './timed-check';

/** Below the liveness probe's timeout: a slow broker never fails liveness, it only delays a verdict. */
const LAG_READ_TIMEOUT_MS = 2_000;

/**
 * The service's consumer: whether it is a running member of its group (`isHealthy`), and whether
 * it moves (`isLive`): no partition of this member has had lag and no progress for the stall
 * timeout. A consumer that crashed and is being restarted is not healthy; it is still alive.
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

  /** Reads the lag from the broker first; while it cannot be read, nothing counts as stalled. */
  async isLive(stallTimeoutMs: number, key = 'progress'): Promise<HealthIndicatorResult> {
    const indicator = this.health.check(key);
    await withTimeout(this.server.readLag(), LAG_READ_TIMEOUT_MS, 'Kafka').catch(() =>
      this.server.progress.lagUnknown(),
    );
    const stalled = this.server.progress.stalled(stallTimeoutMs);
    const details = { stallTimeoutMs, assignment: this.server.assignment() };
    if (stalled.length === 0) return indicator.up(details);
    const names = stalled.map(
      ({ topic, partition, lag, stalledMs }) => `${topic}/${partition} (lag ${lag}, ${stalledMs} ms)`,
    );
    return indicator.down({ ...details, stalled, message: `no progress with lag on ${names.join(', ')}` });
  }
}
