import { ServiceNames, type ServiceName } from '@pipeline/contracts';
import { truncate } from '../flow/flow-math';
import type { FlowSample } from '../flow/flow-sample';
import { consumedTopics, FLOW_EDGES, type FlowEdge } from '../flow/flow-topology';
import { html, join, type SafeHtml } from './html';

// The pipeline picture, laid out by hand: the saga reads left to right on one row, the answers
// go back above it, and the two read-only consumers (email, analytics) sit under `orders`.
interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}
const ROW = 200;
const SERVICE = { w: 170, h: 120 };
const TOPIC = { w: 120, h: 40 };
const serviceBox = (x: number, cy = ROW): Box => ({ x, y: cy - SERVICE.h / 2, ...SERVICE });
const topicBox = (x: number): Box => ({ x, y: ROW - TOPIC.h / 2, ...TOPIC });
const ENTRY: Box = { x: 10, y: ROW - 20, w: 100, h: 40 };
/** The five services where the saga puts them. */
const HAND_LAID: Partial<Readonly<Record<ServiceName, Box>>> = {
  order: serviceBox(160),
  payment: serviceBox(570),
  inventory: serviceBox(980),
  email: serviceBox(300, 370),
  analytics: serviceBox(510, 370),
};
/** A service added later (the service generator) joins the lower row, to the right. */
const SERVICES = Object.fromEntries(
  ServiceNames.map((service, i, all) => {
    const extra = all.filter((s) => HAND_LAID[s] === undefined).indexOf(service);
    return [service, HAND_LAID[service] ?? serviceBox(720 + extra * 210, 370)];
  }),
) as Readonly<Record<ServiceName, Box>>;
const TOPICS: Readonly<Record<string, Box>> = {
  orders: topicBox(390),
  payments: topicBox(800),
  inventory: topicBox(1210),
};
const WIDTH = Math.max(1345, ...Object.values(SERVICES).map((box) => box.x + box.w + 10));
const HEIGHT = 440;
const BAR_WIDTH = SERVICE.w - 20;
/** The lag bars share one scale: the largest lag on the picture, and at least this. */
const MIN_BAR_SCALE = 100;
/** What fits on one line of a node at the reason's size; the whole reason is in its title. */
const SUMMARY_CHARS = 26;

const fmt = (value: number | null | undefined, digits = 0) => (value == null ? '–' : value.toFixed(digits));
const rate = (value: number | null | undefined) => (value == null ? '– /s' : `${value.toFixed(1)}/s`);

/** What stands out on a service: each with a colour and a word, never a colour alone. */
export type ServiceState = 'dead' | 'stalled' | 'growing';
const STATE_LABELS: Readonly<Record<ServiceState, string>> = {
  dead: 'DEAD',
  stalled: 'STALLED',
  growing: 'LAG GROWING',
};

/** A service's marks in words, e.g. `DEAD · STALLED`; `ok` when nothing stands out. */
export function stateLabel(states: readonly ServiceState[], separator = ' · '): string {
  return states.length === 0 ? 'ok' : states.map((state) => STATE_LABELS[state]).join(separator);
}

export function serviceStates(sample: FlowSample, service: ServiceName): ServiceState[] {
  const states: ServiceState[] = [];
  const { instances, up } = sample.services[service];
  if (instances > 0 && up === 0) states.push('dead');
  if (sample.groups[service].stalled) states.push('stalled');
  if (sample.groups[service].growing) states.push('growing');
  return states;
}

interface Line {
  readonly d: string;
  readonly label: { readonly x: number; readonly y: number };
}

/** A straight arrow between neighbours on the row, an arc above it going back, a drop below it. */
function route(from: Box, to: Box, lane: number): Line {
  const [fx, fy, tx, ty] = [from.x + from.w / 2, from.y + from.h / 2, to.x + to.w / 2, to.y + to.h / 2];
  if (to.y > from.y + from.h) {
    const [x0, y0, x3, y3] = [fx, from.y + from.h, tx, to.y];
    return {
      d: `M${x0},${y0} C${x0},${(y0 + y3) / 2} ${x3},${(y0 + y3) / 2} ${x3},${y3}`,
      label: { x: (x0 + x3) / 2, y: (y0 + y3) / 2 - 4 },
    };
  }
  if (to.x > from.x) {
    const [x0, x3] = [from.x + from.w, to.x];
    return { d: `M${x0},${fy} L${x3},${ty}`, label: { x: (x0 + x3) / 2, y: fy - 8 } };
  }
  const [x0, y0, x3, y3] = [fx, from.y, tx + lane * 14, to.y];
  const top = Math.min(y0, y3) - 40 - lane * 34;
  // A cubic Bézier's midpoint: (P0 + 3 P1 + 3 P2 + P3) / 8.
  const midY = (y0 + 3 * top + 3 * top + y3) / 8;
  return {
    d: `M${x0},${y0} C${x0},${top} ${x3},${top} ${x3},${y3}`,
    label: { x: (x0 + x3) / 2, y: midY - 4 },
  };
}

function edge(sample: FlowSample, e: FlowEdge, lane: number): SafeHtml {
  const service = SERVICES[e.service];
  const topic = TOPICS[e.topic]!;
  const line = e.kind === 'produces' ? route(service, topic, lane) : route(topic, service, lane);
  const perSecond =
    e.kind === 'produces'
      ? sample.topics[e.topic]?.perSecond
      : sample.groups[e.service].byTopic[e.topic]?.perSecond;
  const name = e.kind === 'produces' ? `${e.service} → ${e.topic}` : `${e.topic} → ${e.service}`;
  return html`<g class="edge" data-edge="${name}" data-rate="${fmt(perSecond, 2)}">
    <title>${name}: ${rate(perSecond)}</title>
    <path d="${line.d}" marker-end="url(#flow-arrow)" />
    <text x="${line.label.x}" y="${line.label.y}" text-anchor="middle">${rate(perSecond)}</text>
  </g>`;
}

function serviceNode(sample: FlowSample, service: ServiceName, barScale: number): SafeHtml {
  const box = SERVICES[service];
  const states = serviceStates(sample, service);
  const s = sample.services[service];
  const group = sample.groups[service];
  const lag = group.lag;
  const fill = lag === null ? 0 : Math.round((Math.min(lag, barScale) / barScale) * BAR_WIDTH);
  const label = stateLabel(states);
  const instances = `${s.up}/${s.instances} up`;
  const reason = group.stalled ? group.stalledReason : null;
  const summary = group.stalled ? group.stalledSummary : null;
  const title = `${service}-service (${group.group}): ${label}; lag ${fmt(lag)}; ${instances}${reason === null ? '' : `; stalled: ${reason}`}`;
  return html`<g
    class="service ${states.length === 0 ? 'state-ok' : `state-${states[0]}`}"
    data-service="${service}"
    data-state="${states.join(' ') || 'ok'}"
    data-lag="${lag ?? ''}"
    data-stalled-reason="${reason ?? ''}"
  >
    <title>${title}</title>
    <rect class="box" x="${box.x}" y="${box.y}" width="${box.w}" height="${box.h}" rx="6" />
    <text class="name" x="${box.x + 10}" y="${box.y + 18}">${service}</text>
    <text x="${box.x + box.w - 10}" y="${box.y + 18}" text-anchor="end">${instances}</text>
    <text class="state" x="${box.x + 10}" y="${box.y + 36}">${label}</text>
    ${
      summary === null
        ? ''
        : html`<text class="reason" x="${box.x + 10}" y="${box.y + 52}" font-size="10.5">
            ${truncate(summary, SUMMARY_CHARS)}
          </text>`
    }
    <text x="${box.x + 10}" y="${box.y + 70}">
      ${consumedTopics(service).length === 0 ? 'no consumer' : `lag ${fmt(lag)}`}
    </text>
    <rect class="lag-track" x="${box.x + 10}" y="${box.y + 76}" width="${BAR_WIDTH}" height="10" />
    <rect class="lag-bar" x="${box.x + 10}" y="${box.y + 76}" width="${fill}" height="10" />
    <text x="${box.x + 10}" y="${box.y + 106}">outbox ${fmt(s.outboxBacklog)}</text>
    <text x="${box.x + box.w - 10}" y="${box.y + 106}" text-anchor="end"
      >dead letters ${fmt(s.deadLetters)}</text
    >
  </g>`;
}

function topicNode(name: string, box: Box): SafeHtml {
  return html`<g class="topic" data-topic="${name}">
    <rect x="${box.x}" y="${box.y}" width="${box.w}" height="${box.h}" rx="${box.h / 2}" />
    <text x="${box.x + box.w / 2}" y="${box.y + box.h / 2 + 5}" text-anchor="middle">${name}</text>
  </g>`;
}

/** The picture of one sample, as an inline SVG (server-rendered; refreshed as a fragment). */
export function flowDiagram(sample: FlowSample | undefined): SafeHtml {
  if (sample === undefined) return html`<p>Waiting for the first sample of the pipeline…</p>`;
  const barScale = Math.max(MIN_BAR_SCALE, ...ServiceNames.map((s) => sample.groups[s].lag ?? 0));
  // Arcs going back into the same box get their own lanes so that they do not overlap.
  const lanes = new Map<string, number>();
  const edges = FLOW_EDGES.map((e) => {
    const target = e.kind === 'produces' ? e.topic : e.service;
    const lane = lanes.get(target) ?? 0;
    lanes.set(target, lane + 1);
    return edge(sample, e, lane);
  });
  const entry = SERVICES.order;
  const stood = ServiceNames.filter((s) => serviceStates(sample, s).length > 0);
  const summary =
    stood.length === 0
      ? 'every service is up and keeping up'
      : stood
          .map((s) => {
            const { stalled, stalledReason } = sample.groups[s];
            const why = stalled && stalledReason !== null ? ` (stalled: ${stalledReason})` : '';
            return `${s}: ${stateLabel(serviceStates(sample, s), ', ')}${why}`;
          })
          .join('; ');
  return html`<svg
    class="flow-diagram"
    viewBox="0 0 ${WIDTH} ${HEIGHT}"
    role="img"
    aria-labelledby="flow-diagram-title flow-diagram-desc"
    data-sampled-at="${new Date(sample.at).toISOString()}"
  >
    <title id="flow-diagram-title">
      The pipeline at ${new Date(sample.at).toISOString().slice(11, 19)} UTC
    </title>
    <desc id="flow-diagram-desc">${summary}</desc>
    <defs>
      <marker
        id="flow-arrow"
        viewBox="0 0 10 10"
        refX="9"
        refY="5"
        markerWidth="7"
        markerHeight="7"
        orient="auto-start-reverse"
      >
        <path d="M0,0 L10,5 L0,10 z" />
      </marker>
    </defs>
    <g class="entry">
      <rect x="${ENTRY.x}" y="${ENTRY.y}" width="${ENTRY.w}" height="${ENTRY.h}" rx="4" />
      <text x="${ENTRY.x + ENTRY.w / 2}" y="${ENTRY.y + 25}" text-anchor="middle">POST /orders</text>
    </g>
    <g class="edge" data-edge="POST /orders → order">
      <path d="M${ENTRY.x + ENTRY.w},${ROW} L${entry.x},${ROW}" marker-end="url(#flow-arrow)" />
      <text x="${(ENTRY.x + ENTRY.w + entry.x) / 2}" y="${ROW - 8}" text-anchor="middle">
        ${rate(sample.placedPerSecond)}
      </text>
    </g>
    ${join(edges)} ${join(Object.entries(TOPICS).map(([name, box]) => topicNode(name, box)))}
    ${join(ServiceNames.map((s) => serviceNode(sample, s, barScale)))}
  </svg>`;
}
