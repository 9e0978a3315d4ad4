// The local Zipkin server's query API (infra/bin/zipkin.sh): how a test reads a trace back.
import { randomBytes } from 'node:crypto';

export const ZIPKIN_URL = process.env.ZIPKIN_URL ?? 'http://127.0.0.1:9411';

/** A span as Zipkin's v2 API returns it. */
export interface ZipkinSpan {
  readonly traceId: string;
  readonly id: string;
  readonly parentId?: string;
  readonly name?: string;
  readonly kind?: 'CLIENT' | 'SERVER' | 'PRODUCER' | 'CONSUMER';
  readonly localEndpoint?: { readonly serviceName?: string };
  readonly tags?: Readonly<Record<string, string>>;
}

/** A sampled W3C `traceparent` for a new trace, as a client starting one would send it. */
export function newTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

/** The spans Zipkin holds for `traceId` (empty while none arrived). */
export async function zipkinTrace(traceId: string): Promise<ZipkinSpan[]> {
  const response = await fetch(`${ZIPKIN_URL}/api/v2/trace/${traceId}`);
  if (response.status === 404) return [];
  if (!response.ok) throw new Error(`Zipkin answered ${response.status} for trace ${traceId}`);
  return (await response.json()) as ZipkinSpan[];
}

/** The service a span was recorded by. */
export const serviceOf = (span: ZipkinSpan): string => span.localEndpoint?.serviceName ?? '';
