// All five services as real processes on one shared topic prefix (each with its own database and
// consumer group), and what a pipeline test asks them over HTTP: it places orders with
// order-service and watches the saga play out in every service.
import type { Admin, Kafka, Producer } from 'kafkajs';
import type { OrderItem } from '@pipeline/contracts';
import { caughtUp, testProducer } from '../support/events';
import { readTopic, testKafka, uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import {
  CONSUMED_TOPICS,
  deletePrefixedTopics,
  emailsTo,
  httpJson,
  startService,
  type MaildevEmail,
  type ServiceName,
  type ServiceUnderTest,
} from '../support/service-harness';

export const SERVICES: readonly ServiceName[] = ['order', 'payment', 'inventory', 'email', 'analytics'];
export const WINDOW_MS = 5 * 60_000;

/** The timeline each saga outcome leaves on the order (in some order: two topics feed it). */
export const Timelines = {
  confirmed: ['order.placed', 'payment.authorized', 'stock.reserved', 'order.confirmed'],
  declined: ['order.placed', 'payment.declined', 'order.cancelled'],
  outOfStock: ['order.placed', 'payment.authorized', 'stock.rejected', 'order.cancelled', 'payment.refunded'],
} as const;

export interface OrderView {
  readonly orderId: string;
  readonly status: string;
  readonly reason: string | null;
  readonly total: string;
  readonly currency: string;
  readonly timeline: readonly { readonly type: string; readonly at: string }[];
}
export interface StockView {
  readonly sku: string;
  readonly available: number;
  readonly reserved: number;
}
export interface WindowView {
  readonly windowStart: string;
  readonly windowEnd: string;
  readonly placed: number;
  readonly confirmed: number;
  readonly cancelled: number;
  readonly revenue: string;
}
export interface WindowsView {
  readonly windows: readonly WindowView[];
  readonly late: number;
}
export interface PlacedOrder {
  readonly orderId: string;
  readonly customerId: string;
  readonly recipient: string;
}

export const totals = (view: WindowsView) => ({
  placed: view.windows.reduce((sum, window) => sum + window.placed, 0),
  confirmed: view.windows.reduce((sum, window) => sum + window.confirmed, 0),
  cancelled: view.windows.reduce((sum, window) => sum + window.cancelled, 0),
});

export class PipelineUnderTest {
  private constructor(
    readonly kafka: Kafka,
    readonly prefix: string,
    readonly admin: Admin,
    readonly producer: Producer,
    readonly services: ReadonlyMap<ServiceName, ServiceUnderTest>,
  ) {}

  /** Starts the five services in parallel; if one fails, stops the others and throws its error. */
  static async start(label: string, env: Record<string, string> = {}): Promise<PipelineUnderTest> {
    const kafka = testKafka();
    const prefix = `${uniqueName(label)}.`;
    const admin = kafka.admin();
    const producer = testProducer(kafka);
    await Promise.all([admin.connect(), producer.connect()]);
    const started = await Promise.allSettled(
      SERVICES.map((name) => startService(name, { prefix, label: `${label}_${name}`, env })),
    );
    const services = new Map<ServiceName, ServiceUnderTest>();
    for (const result of started) {
      if (result.status === 'fulfilled') services.set(result.value.name, result.value);
    }
    const pipeline = new PipelineUnderTest(kafka, prefix, admin, producer, services);
    const failure = started.find((result) => result.status === 'rejected');
    if (failure) {
      await pipeline.stop();
      throw failure.reason;
    }
    return pipeline;
  }

  async stop(): Promise<void> {
    await Promise.allSettled([...this.services.values()].map((service) => service.stop()));
    await deletePrefixedTopics(this.kafka, this.prefix);
    await Promise.all([this.admin.disconnect(), this.producer.disconnect()]);
  }

  service(name: ServiceName): ServiceUnderTest {
    const service = this.services.get(name);
    if (!service) throw new Error(`${name}-service is not running`);
    return service;
  }

  url(name: ServiceName, path: string): string {
    return this.service(name).baseUrl + path;
  }

  /** The prefixed topics `name` consumes. */
  consumed(name: ServiceName): string[] {
    return CONSUMED_TOPICS[name].map((topic) => this.prefix + topic);
  }

  /** `POST /orders` for a new recipient `<uniqueName>@example.test`; expects 202. */
  async placeOrder(
    customerId: string,
    items: readonly OrderItem[],
    headers: Record<string, string> = {},
  ): Promise<PlacedOrder> {
    const recipient = `${uniqueName('buyer')}@example.test`;
    const body = { customerId, customerEmail: recipient, items };
    const answer = await httpJson<{ orderId: string }>('POST', this.url('order', '/orders'), body, headers);
    if (answer.status !== 202) throw new Error(`POST /orders answered ${answer.status}`);
    return { orderId: answer.body.orderId, customerId, recipient };
  }

  async order(orderId: string): Promise<OrderView> {
    return (await httpJson<OrderView>('GET', this.url('order', `/orders/${orderId}`))).body;
  }

  /** The order once its timeline holds every one of `types` (the saga got that far). */
  orderThrough(orderId: string, types: readonly string[]): Promise<OrderView> {
    return eventually(
      async () => {
        const order = await this.order(orderId);
        return types.every((type) => order.timeline.some((entry) => entry.type === type)) ? order : undefined;
      },
      { what: `order ${orderId} through ${types.join(', ')}` },
    );
  }

  /** Waits for a first email, then until email-service processed all it was given: then all of them. */
  async deliveredEmails(recipient: string): Promise<MaildevEmail[]> {
    await eventually(async () => ((await emailsTo(recipient)).length > 0 ? true : undefined), {
      what: `an email to ${recipient}`,
    });
    await caughtUp(this.admin, this.service('email').group, this.consumed('email'));
    return emailsTo(recipient);
  }

  async stock(sku: string): Promise<StockView> {
    return (await httpJson<StockView>('GET', this.url('inventory', `/inventory/${sku}`))).body;
  }

  async windows(customerId: string): Promise<WindowsView> {
    const path = `/analytics/customers/${encodeURIComponent(customerId)}/windows`;
    return (await httpJson<WindowsView>('GET', this.url('analytics', path))).body;
  }

  /** Analytics once it counted a terminal (`confirmed` or `cancelled`) event of the customer. */
  countedWindows(customerId: string, terminal: 'confirmed' | 'cancelled'): Promise<WindowsView> {
    return eventually(
      async () => {
        const view = await this.windows(customerId);
        return totals(view)[terminal] > 0 ? view : undefined;
      },
      { what: `analytics counted ${customerId}'s order ${terminal}` },
    );
  }

  /**
   * The records of these orders on a saga topic (contract name), in partition order: every copy,
   * since the redelivery specs count the copies they published (readTopic, not readEvents).
   */
  async records(topic: string, orderIds: ReadonlySet<string>) {
    const records = await readTopic(this.kafka, this.prefix + topic);
    return records.filter((record) => orderIds.has(record.key?.toString() ?? ''));
  }
}
