// The Grafana dashboard queries only metrics the services export: every metric name in every
// panel's PromQL must be registered in @pipeline/observability's registry (the one GET /metrics
// renders), with its histogram series (_bucket, _sum, _count) where it is a histogram.
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { initMetrics, metricsRegistry } from '@pipeline/observability';

const DASHBOARD = path.resolve(__dirname, '../../infra/grafana/dashboards/order-pipeline.json');

const Target = z.object({ expr: z.string().min(1), refId: z.string() });
const Panel = z.object({ id: z.number(), title: z.string(), type: z.string(), targets: z.array(Target) });
const Dashboard = z.object({ uid: z.string(), title: z.string(), panels: z.array(Panel).min(1) });
type Panel = z.infer<typeof Panel>;

const PROMQL_KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads: identifiers that are neither functions or
 * aggregations (followed by `(`), keywords, label names (inside `{}` or a `by (...)` list),
 * durations (inside `[]`, or after `offset`) nor numbers.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/\boffset\s+-?[0-9a-z]+/gi, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, '');
  const names = new Set<string>();
  for (const match of bare.matchAll(/(?<![\w:.$])([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    const [, name, call] = match;
    if (name === undefined || call !== undefined || PROMQL_KEYWORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names];
}

/** Every series name GET /metrics can render: metric names, plus a histogram's or summary's parts. */
async function exportedSeries(): Promise<Set<string>> {
  initMetrics('dashboard-test'); // adds Node's default process metrics, as every service does
  const series = new Set<string>();
  for (const metric of await metricsRegistry.getMetricsAsJSON()) {
    series.add(metric.name);
    const type = String(metric.type);
    if (type === 'histogram')
      for (const part of ['_bucket', '_sum', '_count']) series.add(metric.name + part);
    if (type === 'summary') for (const part of ['_sum', '_count']) series.add(metric.name + part);
  }
  return series;
}

function unknownMetrics(panels: readonly Panel[], exported: ReadonlySet<string>): string[] {
  return panels.flatMap((panel) =>
    panel.targets.flatMap((target) =>
      metricNames(target.expr)
        .filter((name) => !exported.has(name))
        .map((name) => `panel "${panel.title}" (${target.refId}): ${name}`),
    ),
  );
}

describe('metricNames', () => {
  it('finds the metrics of a PromQL expression and nothing else', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (service, le) (rate(http_server_request_duration_seconds_bucket{route!="/health", status_code=~"5.."}[$__rate_interval])))',
      ),
    ).toEqual(['http_server_request_duration_seconds_bucket']);
    expect(metricNames('sum(rate(a_total[1m] offset 5m)) / on (service) group_left b_total > 1e3')).toEqual([
      'a_total',
      'b_total',
    ]);
    expect(metricNames('max without (instance) (up) or vector(0)')).toEqual(['up']);
    expect(metricNames('count({__name__=~"pipeline_.+"})')).toEqual([]);
  });
});

describe('infra/grafana/dashboards/order-pipeline.json', () => {
  const dashboard = Dashboard.parse(JSON.parse(readFileSync(DASHBOARD, 'utf8')));
  let exported: Set<string>;

  beforeAll(async () => {
    exported = await exportedSeries();
  });

  it('has unique panel ids and at least one query per panel', () => {
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, `panel "${panel.title}"`).toBeGreaterThan(0);
      for (const target of panel.targets) {
        expect(metricNames(target.expr).length, `panel "${panel.title}": ${target.expr}`).toBeGreaterThan(0);
      }
    }
  });

  it('queries only metrics the services export', () => {
    expect(unknownMetrics(dashboard.panels, exported)).toEqual([]);
  });

  it('would fail on a panel that names a metric nobody exports', () => {
    const broken: Panel = {
      id: 999,
      title: 'typo',
      type: 'timeseries',
      targets: [{ refId: 'A', expr: 'sum(rate(pipeline_events_procesed_total[1m]))' }],
    };
    expect(unknownMetrics([broken], exported)).toEqual(['panel "typo" (A): pipeline_events_procesed_total']);
  });

  it('shows what the issue asks for: outcomes, latency, lag, outbox, dead letters, dedupe hits', () => {
    const queried = new Set(
      dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => metricNames(target.expr))),
    );
    for (const name of [
      'orders_completed_total',
      'order_end_to_end_duration_seconds_bucket',
      'pipeline_consumer_lag',
      'pipeline_outbox_backlog_events',
      'pipeline_outbox_oldest_event_age_seconds',
      'pipeline_dead_letter_topic_records',
      'pipeline_events_dead_lettered_total',
      'pipeline_events_deduplicated_total',
      'pipeline_events_processed_total',
      'pipeline_event_handler_duration_seconds_bucket',
      'pipeline_outbox_relay_batch_events_bucket',
      'pipeline_outbox_relay_publish_duration_seconds_bucket',
      'http_server_requests_total',
      'http_server_request_duration_seconds_bucket',
      'process_resident_memory_bytes',
    ]) {
      expect(queried, name).toContain(name);
    }
  });
});
