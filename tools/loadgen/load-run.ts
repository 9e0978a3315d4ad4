import type { LoadgenConfig } from './args';
import { LatencyHistogram } from './latency-stats';
import { OrderClient, pickOutcome, planOrder, seededRandom, type PlannedOrder } from '@pipeline/load';
import { cpuBetween, readCpu, type LoadgenCpu } from './cpu-account';
import { OutcomeTracker, type TerminalType } from './outcome-tracker';
import { constantRate, runClosedModel, runOpenModel, steppedRate, type Clock, type Slot } from './scheduler';
import { Timeline } from './timeline';

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
  private readonly random: () => number;
  private readonly client: OrderClient;

  constructor(
    private readonly config: LoadgenConfig,
    private readonly clock: Clock,
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

  /** Runs the load; returns the generator's own CPU over it. */
  async run(): Promise<LoadgenCpu> {
    const from = readCpu();
    await this.generate();
    return cpuBetween(from, readCpu(), this.tracker.totals().offered);
  }

  async close(): Promise<void> {
    await this.client.close();
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
    this.inFlight--;
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
