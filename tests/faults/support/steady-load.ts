// Steady open-model load: one order every 1/rate seconds, whatever happens to the services, built
// with the load generator's order mix and HTTP client. An order counts as placed when order-service
// answered 202; a refused or failed POST is only counted (the client would retry it).
import { pickOutcome, planOrder, postOrder, seededRandom, type Outcome } from '@pipeline/load';
import { uniqueName } from '../../support/kafka';

export interface PlacedOrder {
  readonly orderId: string;
  readonly intended: Outcome;
  readonly recipient: string;
}

const MIX = { confirmed: 70, declined: 15, 'out-of-stock': 15 } as const;

export class SteadyLoad {
  /** Every recipient of this load starts with it, so its emails can be told from others'. */
  readonly runId = uniqueName('faults').replaceAll('.', '-');
  readonly placed: PlacedOrder[] = [];
  readonly refused: Record<string, number> = {};
  private readonly random = seededRandom(Date.now() & 0xffffffff);
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private sequence = 0;

  /** `orderUrl` is asked before every POST: order-service may have moved after a restart. */
  constructor(
    private readonly orderUrl: () => string | undefined,
    private readonly ratePerSecond = 10,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.fire(), 1000 / this.ratePerSecond);
  }

  /** Stops offering orders and waits for the POSTs in flight. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.inFlight);
  }

  /** Waits until `count` more orders have been placed (load is steady, so this is a clock). */
  async placedMore(count: number, timeoutMs = 180_000): Promise<void> {
    const target = this.placed.length + count;
    const deadline = Date.now() + timeoutMs;
    while (this.placed.length < target) {
      if (Date.now() > deadline)
        throw new Error(
          `load placed fewer than ${count} orders in ${timeoutMs} ms (refused: ${JSON.stringify(this.refused)})`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private fire(): void {
    const intended = pickOutcome(MIX, this.random);
    const { body } = planOrder(
      intended,
      { customers: 20, sequence: this.sequence++, runId: this.runId },
      this.random,
    );
    const url = this.orderUrl();
    if (url === undefined) {
      this.refused['no-instance'] = (this.refused['no-instance'] ?? 0) + 1;
      return;
    }
    const request = postOrder(url, body, 15_000).then((result) => {
      if (result.ok) this.placed.push({ orderId: result.orderId, intended, recipient: body.customerEmail });
      else this.refused[result.status] = (this.refused[result.status] ?? 0) + 1;
    });
    this.inFlight.add(request);
    void request.finally(() => this.inFlight.delete(request));
  }
}
