import type { LoadConfig } from '../load-config';
import { OrderClient } from '../order-client';
import { pickOutcome, planOrder, seededRandom, type PlannedOrder } from '../order-mix';
import { cpuBetween, readCpu, type LoadgenCpu } from './cpu-account';
import { LatencyHistogram } from './latency-stats';
import { OutcomeTracker, type TerminalType } from './outcome-tracker';
import { constantRate, runClosedModel, runOpenModel, steppedRate, type Clock, type Slot } from './scheduler';
import { Timeline } from './timeline';

/** After a stop, how long the requests already sent may take to answer before they are cut off. */
const STOP_GRACE_MS = 1_000;

/** Everything measured while the load runs; the Kafka side feeds it through `terminal`. */
export class LoadRun {
  readonly http = new LatencyHistogram();
  /** From each request's scheduled time to its hand-over to the HTTP client: the generator's own lateness. */
  readonly sendDelay = new LatencyHistogram();
  readonly e2e = new LatencyHistogram();
  readonly e2eByType: Record<TerminalType, LatencyHistogram> = {
    'order.confirmed': new LatencyHistogram(),
    'order.cancelled': new LatencyHistogram(),
  };
  readonly tracker: OutcomeTracker;
  readonly timeline: Timeline;
  readonly runId: string;
  readonly start: number;
  inFlight = 0;
  private settled: (() => void) | undefined;
  private destroyed = false;
  private readonly random: () => number;
  private readonly client: OrderClient;

  constructor(
    private readonly config: LoadConfig,
    private readonly clock: Clock,
    private readonly signal?: AbortSignal,
  ) {
    this.start = clock.now();
    this.runId = `lg${Math.floor(this.start).toString(36)}`;
    this.random = seededRandom(config.seed);
    this.client = new OrderClient(config.baseUrl, {
      connections: config.connections,
      timeoutMs: 30_000,
      traceRatio: config.traceRatio,
    });
    this.timeline = new Timeline(this.start, () => clock.now());
    this.tracker = new OutcomeTracker((ms, type) => {
      this.e2e.record(ms);
      this.e2eByType[type].record(ms);
      this.timeline.terminal(ms);
    });
  }

  elapsedSeconds(): number {
    return (this.clock.now() - this.start) / 1000;
  }

  /** Called as the consumer receives the event: the arrival time is read here, on the run's clock. */
  terminal(orderId: string, type: TerminalType): void {
    this.tracker.terminal(orderId, type, this.clock.now());
  }

  /**
   * Runs the load; returns the generator's own CPU over it. Stopped by the signal, the requests in
   * flight get STOP_GRACE_MS to answer; those still open then are cut off (and count as HTTP
   * errors, so that the report adds up: offered = placed + errors + dropped).
   */
  async run(): Promise<LoadgenCpu> {
    const from = readCpu();
    await this.generate();
    if (this.signal?.aborted && this.inFlight > 0) {
      const settled = new Promise<void>((resolve) => (this.settled = resolve));
      await Promise.race([settled, this.clock.sleep(STOP_GRACE_MS)]);
      if (this.inFlight > 0) {
        this.destroyed = true;
        await this.client.destroy();
        await Promise.race([settled, this.clock.sleep(STOP_GRACE_MS)]);
      }
    }
    return cpuBetween(from, readCpu(), this.tracker.totals().offered);
  }

  async close(): Promise<void> {
    if (!this.destroyed) await this.client.close();
  }

  private async generate(): Promise<void> {
    const { model } = this.config;
    const send = (slot: Slot): Promise<void> => this.send(slot);
    if (model.kind === 'closed') {
      await runClosedModel({
        clients: model.clients,
        durationSeconds: model.durationSeconds,
        clock: this.clock,
        send,
        ...(this.signal ? { signal: this.signal } : {}),
      });
      return;
    }
    const profile =
      model.kind === 'open'
        ? constantRate(model.rate, model.durationSeconds)
        : steppedRate(model.steps, model.stepSeconds);
    await runOpenModel({
      profile,
      maxInFlight: this.config.maxInFlight,
      clock: this.clock,
      send,
      ...(this.signal ? { signal: this.signal } : {}),
      onDropped: (slot) => {
        this.plan(slot);
        this.tracker.offer();
        this.tracker.drop();
        this.timeline.offered(slot.scheduledAt);
        this.timeline.error();
      },
    });
  }

  /** Every slot, sent or dropped, draws its order: the seeded sequence does not depend on timing. */
  private plan(slot: Slot): PlannedOrder {
    const outcome = pickOutcome(this.config.mix, this.random);
    return planOrder(
      outcome,
      { customers: this.config.customers, sequence: slot.sequence, runId: this.runId },
      this.random,
    );
  }

  private async send(slot: Slot): Promise<void> {
    const order = this.plan(slot);
    const { outcome } = order;
    this.tracker.offer();
    this.timeline.offered(slot.scheduledAt);
    this.inFlight++;
    this.sendDelay.record(this.clock.now() - slot.scheduledAt);
    const result = await this.client.post(order.body);
    if (--this.inFlight === 0) this.settled?.();
    const httpMs = this.clock.now() - slot.scheduledAt;
    if (result.ok) {
      this.http.record(httpMs);
      this.timeline.placed(httpMs);
      this.tracker.accepted(result.orderId, slot.scheduledAt, outcome);
    } else {
      this.tracker.httpError(result.status);
      this.timeline.error();
    }
  }
}
