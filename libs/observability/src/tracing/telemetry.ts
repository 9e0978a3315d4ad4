import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { context, propagation, trace, type Context } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { samplerFromEnv } from './sampler';

export interface TelemetryOptions {
  /** `service.name`, e.g. `order-service`. */
  readonly service: string;
  /** `service.version`; defaults to the workspace's package.json version. */
  readonly version?: string;
}

/** Probes and scrapes are not traffic: they would drown the traces people look for. */
const UNTRACED_PATHS = /^\/(health|metrics)(\/|\?|$)/;

let sdk: NodeSDK | undefined;

/**
 * Starts the OpenTelemetry SDK. Call it before anything loads `http` or `pg` (each service's
 * `telemetry.ts`, imported first by its `main.ts`), so their instrumentation can patch them.
 *
 * The standard variables choose the rest: `OTEL_TRACES_EXPORTER` (`zipkin` locally, `otlp` in
 * Docker, `none`), `OTEL_EXPORTER_ZIPKIN_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG`, `OTEL_BSP_*`, `OTEL_SDK_DISABLED`.
 * The sampler is parent-based in every setup (the SDK's default, `parentbased_always_on`): a
 * request without a `traceparent` (an order placed by hand) starts a sampled trace, and one with
 * a `traceparent` keeps its sampled flag, so a load generator decides which fraction of its
 * orders is traced (docs/observability.md, "Sampling under load"). A root span linked to other
 * traces follows them the same way (`samplerFromEnv`, which reads the standard variables).
 * Metrics are Prometheus (`GET /metrics`, prom-client), so no OTel metric reader is started.
 */
export function startTelemetry(options: TelemetryOptions): void {
  if (sdk !== undefined) return;
  sdk = new NodeSDK({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: options.service,
      [ATTR_SERVICE_VERSION]: options.version ?? workspaceVersion(),
    }),
    sampler: samplerFromEnv(),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.test(request.url ?? ''),
      }),
      // Only queries inside a trace (a request, an event): the relay's polling and the health
      // probes would otherwise start a trace per query.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    ],
  });
  sdk.start();
}

/** Flushes spans still buffered; called when the service shuts down. */
export async function shutdownTelemetry(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown();
}

/** The W3C trace context of `ctx` (default: the active one) as headers, empty when there is none. */
export function traceHeaders(ctx: Context = context.active()): { traceparent?: string; tracestate?: string } {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return {
    ...(carrier['traceparent'] ? { traceparent: carrier['traceparent'] } : {}),
    ...(carrier['tracestate'] ? { tracestate: carrier['tracestate'] } : {}),
  };
}

/** Trace and span id of the active span, for log lines; undefined outside a trace. */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  const spanContext = trace.getSpanContext(context.active());
  if (spanContext === undefined || !trace.isSpanContextValid(spanContext)) return undefined;
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** The version of the nearest package.json above this file (the workspace's, in dist/ and src/). */
function workspaceVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    try {
      const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string };
      if (version) return version;
    } catch {
      // no package.json here: keep walking up
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}
