import type { EachBatchPayload } from 'kafkajs';

/**
 * Heartbeats on a timer while a fetch is applied, so a slow transaction does not get the member
 * evicted (kafkajs heartbeats only between fetches). kafkajs throttles the calls to its heartbeat
 * interval. A heartbeat that fails (a rebalance started) is remembered: the consumer hands it to
 * kafkajs once the batch in hand is committed.
 */
export class KeepAlive {
  error: Error | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly payload: EachBatchPayload,
    intervalMs: number,
  ) {
    this.timer = setInterval(() => void this.beat(), intervalMs);
  }

  private async beat(): Promise<void> {
    try {
      await this.payload.heartbeat();
    } catch (error) {
      this.error ??= error instanceof Error ? error : new Error(String(error));
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
