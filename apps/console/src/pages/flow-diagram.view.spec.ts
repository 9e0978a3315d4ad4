import { ServiceNames, type ServiceName } from '@pipeline/contracts';
import { describe, expect, it } from 'vitest';
import type { FlowSample, GroupSample, ServiceSample } from '../flow/flow-sample';
import { flowDiagram, serviceStates } from './flow-diagram.view';

const group = (service: ServiceName, over: Partial<GroupSample> = {}): GroupSample => ({
  group: `${service}-service`,
  lag: 0,
  committed: 100,
  byTopic: {
    orders: { lag: 0, perSecond: 12.5 },
    payments: { lag: 0, perSecond: 12.5 },
    inventory: { lag: 0, perSecond: 12.5 },
  },
  stalled: false,
  stalledReason: null,
  stalledSummary: null,
  growing: false,
  ...over,
});
const service = (over: Partial<ServiceSample> = {}): ServiceSample => ({
  instances: 1,
  up: 1,
  outboxBacklog: 0,
  deadLetters: 2,
  cpuPercent: 3,
  rssBytes: 1,
  eventsPerTransaction: 4,
  ...over,
});

function sample(
  overrides: Partial<
    Record<ServiceName, { group?: Partial<GroupSample>; service?: Partial<ServiceSample> }>
  > = {},
): FlowSample {
  return {
    at: Date.parse('2026-12-02T03:00:00.000Z'),
    placedPerSecond: 20,
    terminalPerSecond: 19.5,
    e2eP50Ms: 80,
    e2eP99Ms: 400,
    topics: {
      orders: { high: 10, perSecond: 40 },
      payments: { high: 5, perSecond: 20 },
      inventory: { high: 5, perSecond: 20 },
    },
    groups: Object.fromEntries(
      ServiceNames.map((s) => [s, group(s, overrides[s]?.group)]),
    ) as FlowSample['groups'],
    services: Object.fromEntries(
      ServiceNames.map((s) => [s, service(overrides[s]?.service)]),
    ) as FlowSample['services'],
  };
}

const nodeOf = (svg: string, name: ServiceName) =>
  /<g\s+class="service[^"]*"\s+data-service="([a-z]+)"[\s\S]*?<\/g>/g.exec.bind(
    new RegExp(`<g\\s+class="service[^"]*"\\s+data-service="${name}"[\\s\\S]*?</g>`),
  )(svg)?.[0] ?? '';

describe('flowDiagram', () => {
  it('draws every service, topic and contract edge with its rate', () => {
    const svg = flowDiagram(sample()).value;
    for (const name of ServiceNames) expect(svg).toContain(`data-service="${name}"`);
    for (const topic of ['orders', 'payments', 'inventory']) expect(svg).toContain(`data-topic="${topic}"`);
    // Edges from the contracts: producers to topics, topics to each consuming group.
    for (const edge of [
      'order → orders',
      'orders → payment',
      'payments → inventory',
      'inventory → order',
      'orders → email',
      'orders → analytics',
      'inventory → payment',
    ])
      expect(svg).toContain(`data-edge="${edge}"`);
    expect(svg).toContain('>40.0/s<'); // order → orders, from the topic's end offsets
    expect(svg).toContain('>12.5/s<'); // a group's committed offsets
    expect(svg).toContain('>20.0/s<'); // POST /orders
    expect(svg).toContain('dead letters 2');
    expect(svg).toContain('every service is up and keeping up');
  });

  it('marks a dead, stalled, lagging consumer with a word and a class, and scales its lag bar', () => {
    const svg = flowDiagram(
      sample({
        payment: { group: { lag: 400, stalled: true, growing: true }, service: { up: 0 } },
        email: { group: { lag: 100 } },
      }),
    ).value;
    const payment = nodeOf(svg, 'payment');
    expect(payment).toContain('class="service state-dead"');
    expect(payment).toContain('data-state="dead stalled growing"');
    expect(payment).toContain('DEAD · STALLED · LAG GROWING');
    expect(payment).toContain('data-lag="400"');
    expect(payment).toMatch(/class="lag-bar"[^>]*width="150"/);
    expect(nodeOf(svg, 'email')).toMatch(/class="lag-bar"[^>]*width="38"/);
    expect(nodeOf(svg, 'order')).toContain('data-state="ok"');
    expect(svg).toContain('payment: DEAD, STALLED, LAG GROWING');
  });

  it('says why a service is stalled: a few words in its node, the whole reason in its title and the description', () => {
    const reason = `consumer group payment-service crash-looping: 12 crashes in 64000 ms without progress, last: <${'x'.repeat(300)}>`;
    const svg = flowDiagram(
      sample({
        payment: {
          group: { lag: 40, stalled: true, stalledReason: reason, stalledSummary: 'crash loop: 12 crashes' },
        },
        email: {
          group: {
            lag: 9,
            stalled: true,
            stalledReason:
              'lag and no committed progress; /health/live still passes (stall timeout not reached)',
            stalledSummary: 'a summary far too long for one line of a node',
          },
        },
      }),
    ).value;
    const payment = nodeOf(svg, 'payment');
    expect(payment).toContain('class="service state-stalled"');
    expect(payment).toMatch(/<text class="reason"[^>]*>\s*crash loop: 12 crashes\s*<\/text>/);
    // The title is the node's tooltip and accessible name; escaped like everything else.
    const escaped = reason.replace('<', '&lt;').replace('>', '&gt;');
    expect(payment).toContain(
      `<title>payment-service (payment-service): STALLED; lag 40; 1/1 up; stalled: ${escaped}</title>`,
    );
    expect(payment).toContain(`data-stalled-reason="${escaped}"`);
    expect(payment).not.toContain('<xxx');
    expect(svg).toContain(`payment: STALLED (stalled: ${escaped})`);
    expect(nodeOf(svg, 'email')).toMatch(/<text class="reason"[^>]*>\s*a summary far too long…\s*<\/text>/);
    expect(svg).toContain(
      'email: STALLED (stalled: lag and no committed progress; /health/live still passes',
    );
    // Nothing stalled, no reason line.
    expect(nodeOf(svg, 'order')).not.toContain('class="reason"');
    expect(nodeOf(svg, 'order')).toContain('data-stalled-reason=""');
  });

  it('escapes what it renders, and waits for the first sample', () => {
    const svg = flowDiagram(sample({ order: { group: { group: '<script>' } } })).value;
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;');
    expect(flowDiagram(undefined).value).toContain('Waiting for the first sample');
  });

  it('names the states of a service', () => {
    expect(serviceStates(sample({ inventory: { group: { growing: true } } }), 'inventory')).toEqual([
      'growing',
    ]);
    expect(serviceStates(sample({ email: { service: { instances: 0, up: 0 } } }), 'email')).toEqual([]);
  });
});
