/**
 * The work a step cost, counted rather than timed: Kafka requests by API and database statements
 * (each service's own counters on /metrics) and commits (pg_stat_database), per order. Counts do
 * not depend on the machine's speed, so two machines' runs compare on them directly.
 */

/** One service's counters at one moment, read from its Prometheus text. */
export interface ServiceCounters {
  /** pipeline_kafka_requests_total by its `api` label. */
  readonly kafkaRequests: Readonly<Record<string, number>>;
  /** pipeline_kafka_response_bytes_total by its `api` label (absent in older builds: empty). */
  readonly kafkaResponseBytes?: Readonly<Record<string, number>>;
  /** pipeline_db_statements_total. */
  readonly dbStatements: number;
}

/** Per service: its counters; and per service: its database's commits (pg_stat_database). */
export interface CountersReading {
  readonly services: Readonly<Record<string, ServiceCounters>>;
  readonly commits: Readonly<Record<string, number>>;
}

export interface PerOrder {
  readonly total: number;
  readonly byService: Readonly<Record<string, number>>;
}

/** What one step cost per order placed in its measured window (bench.json `counts`). */
export interface StepCounts {
  /** Orders placed in the window: the denominator. */
  readonly orders: number;
  readonly seconds: number;
  readonly kafkaRequests: PerOrder & { readonly byApi: Readonly<Record<string, number>> };
  /** Response bytes per order by API: Fetch is what the consumers took off the wire, compressed. */
  readonly kafkaResponseBytes?: { readonly byApi: Readonly<Record<string, number>> };
  readonly dbStatements: PerOrder;
  readonly dbCommits: PerOrder;
  /** Totals with the idle rate (no load at all) taken out, when the idle rate was measured. */
  readonly aboveIdle?: {
    readonly kafkaRequests: number;
    readonly dbStatements: number;
    readonly dbCommits: number;
  };
}

/** Per-second rates of the same totals with the stack idle. */
export interface IdleRates {
  readonly kafkaRequests: number;
  readonly dbStatements: number;
  readonly dbCommits: number;
}

const SAMPLE =
  /^(pipeline_kafka_requests_total|pipeline_kafka_response_bytes_total|pipeline_db_statements_total)(?:\{([^}]*)\})?\s+(\S+)/;

/** The counters out of a service's `/metrics` text; absent ones read as zero. */
export function parseServiceCounters(text: string): ServiceCounters {
  const kafkaRequests: Record<string, number> = {};
  const kafkaResponseBytes: Record<string, number> = {};
  let dbStatements = 0;
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match) continue;
    const value = Number(match[3]);
    if (!Number.isFinite(value)) continue;
    if (match[1] === 'pipeline_db_statements_total') dbStatements += value;
    else {
      const api = /api="([^"]*)"/.exec(match[2] ?? '')?.[1] ?? 'unknown';
      const into = match[1] === 'pipeline_kafka_requests_total' ? kafkaRequests : kafkaResponseBytes;
      into[api] = (into[api] ?? 0) + value;
    }
  }
  return { kafkaRequests, kafkaResponseBytes, dbStatements };
}

const round = (n: number): number => Math.round(n * 100) / 100;
const sum = (values: Iterable<number>): number => [...values].reduce((a, b) => a + b, 0);
const totalRequests = (c: ServiceCounters | undefined): number => sum(Object.values(c?.kafkaRequests ?? {}));

function byKey(
  keys: Iterable<string>,
  delta: (key: string) => number,
  orders: number,
): Record<string, number> {
  return Object.fromEntries([...new Set(keys)].sort().map((k) => [k, round(delta(k) / orders)]));
}

/** Raw growth of each total between two readings (a service restarted meanwhile counts from zero). */
export function readingDelta(from: CountersReading, to: CountersReading): IdleRates {
  const grew = (a: number, b: number | undefined): number =>
    Math.max(0, a - (b !== undefined && b <= a ? b : 0));
  const services = Object.keys(to.services);
  return {
    kafkaRequests: sum(
      services.map((s) => grew(totalRequests(to.services[s]), totalRequests(from.services[s]))),
    ),
    dbStatements: sum(
      services.map((s) => grew(to.services[s]?.dbStatements ?? 0, from.services[s]?.dbStatements)),
    ),
    dbCommits: sum(Object.keys(to.commits).map((s) => grew(to.commits[s] ?? 0, from.commits[s]))),
  };
}

/** Idle rates per second from two readings `seconds` apart. */
export function idleRates(from: CountersReading, to: CountersReading, seconds: number): IdleRates {
  const d = readingDelta(from, to);
  const per = (n: number): number => (seconds > 0 ? n / seconds : 0);
  return {
    kafkaRequests: per(d.kafkaRequests),
    dbStatements: per(d.dbStatements),
    dbCommits: per(d.dbCommits),
  };
}

/** Per-order counts between the readings at a step window's start and end. */
export function stepCounts(
  from: CountersReading,
  to: CountersReading,
  window: { readonly orders: number; readonly seconds: number },
  idle?: IdleRates,
): StepCounts {
  const orders = Math.max(1, window.orders);
  const services = Object.keys(to.services);
  const requestDelta = (s: string, api: string): number =>
    Math.max(0, (to.services[s]?.kafkaRequests[api] ?? 0) - (from.services[s]?.kafkaRequests[api] ?? 0));
  const apis = services.flatMap((s) => Object.keys(to.services[s]?.kafkaRequests ?? {}));
  const byApi = Object.fromEntries(
    Object.entries(byKey(apis, (api) => sum(services.map((s) => requestDelta(s, api))), orders)).filter(
      ([, perOrder]) => perOrder > 0,
    ),
  );
  const bytesDelta = (s: string, api: string): number =>
    Math.max(
      0,
      (to.services[s]?.kafkaResponseBytes?.[api] ?? 0) - (from.services[s]?.kafkaResponseBytes?.[api] ?? 0),
    );
  const byteApis = services.flatMap((s) => Object.keys(to.services[s]?.kafkaResponseBytes ?? {}));
  const bytesByApi = Object.fromEntries(
    Object.entries(byKey(byteApis, (api) => sum(services.map((s) => bytesDelta(s, api))), orders)).filter(
      ([, perOrder]) => perOrder > 0,
    ),
  );
  const d = readingDelta(from, to);
  const perOrder = (n: number): number => round(n / orders);
  return {
    orders: round(window.orders),
    seconds: round(window.seconds),
    kafkaRequests: {
      total: perOrder(d.kafkaRequests),
      byApi,
      byService: byKey(
        services,
        (s) => totalRequests(to.services[s]) - totalRequests(from.services[s]),
        orders,
      ),
    },
    ...(byteApis.length > 0 ? { kafkaResponseBytes: { byApi: bytesByApi } } : {}),
    dbStatements: {
      total: perOrder(d.dbStatements),
      byService: byKey(
        services,
        (s) => (to.services[s]?.dbStatements ?? 0) - (from.services[s]?.dbStatements ?? 0),
        orders,
      ),
    },
    dbCommits: {
      total: perOrder(d.dbCommits),
      byService: byKey(Object.keys(to.commits), (s) => (to.commits[s] ?? 0) - (from.commits[s] ?? 0), orders),
    },
    ...(idle
      ? {
          aboveIdle: {
            kafkaRequests: perOrder(Math.max(0, d.kafkaRequests - idle.kafkaRequests * window.seconds)),
            dbStatements: perOrder(Math.max(0, d.dbStatements - idle.dbStatements * window.seconds)),
            dbCommits: perOrder(Math.max(0, d.dbCommits - idle.dbCommits * window.seconds)),
          },
        }
      : {}),
  };
}
