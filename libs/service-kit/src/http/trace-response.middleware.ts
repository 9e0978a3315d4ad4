import { context, trace } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';

/**
 * W3C Trace Context level 2 `traceresponse: 00-<trace-id>-<span-id>-<flags>` on every traced
 * request, so whoever placed an order can look its trace up in the trace UI. Runs inside the
 * HTTP server span the instrumentation started; untraced paths (health, metrics) get none.
 */
export function traceResponseMiddleware(_request: Request, response: Response, next: NextFunction): void {
  const spanContext = trace.getSpanContext(context.active());
  if (spanContext !== undefined && trace.isSpanContextValid(spanContext)) {
    const flags = spanContext.traceFlags.toString(16).padStart(2, '0');
    response.setHeader('traceresponse', `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`);
  }
  next();
}
