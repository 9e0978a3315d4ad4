import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { KAFKA_ADMIN, KAFKA_EVENT_SERVER, isBrokerOutage, type KafkaEventServer } from '@pipeline/messaging';
import type { Admin } from 'kafkajs';
import { withTimeout } from './timed-check';

/** Below the liveness probe's timeout (3 s): a slow broker never fails liveness, it only delays a verdict. */
const LAG_READ_TIMEOUT_MS = 2_000;

/**
 * The service's consumer: whether it is a running member of its group (`isHealthy`), and whether
 * it moves (`isLive`): it is not crash-looping, and no partition of this member has had lag and no
 * progress for the stall timeout. A consumer that crashed once and is being restarted is not
 * healthy; it is still alive.
 */
@Injectable()
export class ConsumerHealthIndicator {
  constructor(
    @Inject(KAFKA_EVENT_SERVER) private readonly server: KafkaEventServer,
    @Inject(KAFKA_ADMIN) private readonly admin: Admin,
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

  /**
   * Reads the lag from the broker first. A read that fails or is slow resets no stall clock: the
   * partitions are judged on the lag read last. Only in an outage, which no restart cures, do the
   * clocks hold: no broker answers, or the lag read failed on a broker error that says so (a
   * partition without a leader). A crash loop is judged without the lag.
   */
  async isLive(stallTimeoutMs: number, key = 'progress'): Promise<HealthIndicatorResult> {
    const indicator = this.health.check(key);
    const failure = (probe: Promise<unknown>) =>
      withTimeout(probe, LAG_READ_TIMEOUT_MS, 'Kafka').then(
        () => undefined,
        (error: unknown) => error ?? new Error('failed'),
      );
    const [lagFailure, brokerFailure] = await Promise.all([
      failure(this.server.readLag()),
      failure(this.admin.describeCluster()),
    ]);
    const outage = lagFailure !== undefined && (brokerFailure !== undefined || isBrokerOutage(lagFailure));
    if (outage) this.server.progress.brokerAway();
    const stalled = this.server.progress.stalled(stallTimeoutMs);
    const crashLoop = this.server.crashes.looping(stallTimeoutMs);
    const details = { stallTimeoutMs, assignment: this.server.assignment() };
    if (stalled.length === 0 && crashLoop === undefined) return indicator.up(details);
    const reasons = [
      ...(crashLoop === undefined
        ? []
        : [
            `consumer group ${this.server.consumerStatus().groupId} crash-looping: ${crashLoop.crashes} crashes in ${crashLoop.loopingMs} ms without progress, last: ${crashLoop.lastError}`,
          ]),
      ...(stalled.length === 0
        ? []
        : [
            `no progress with lag on ${stalled
              .map(
                ({ topic, partition, lag, stalledMs }) =>
                  `${topic}/${partition} (lag ${lag}, ${stalledMs} ms)`,
              )
              .join(', ')}`,
          ]),
    ];
    return indicator.down({
      ...details,
      stalled,
      ...(crashLoop === undefined ? {} : { crashLoop }),
      message: reasons.join('; '),
    });
  }
}
