import { context, trace } from '@opentelemetry/api';
import { ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { routeTemplate } from './route-template';

/**
 * `onRequest`, inside the HTTP server span the instrumentation started (untraced paths, health
 * and metrics, have none):
 * - names the span after its route (`POST /orders`, `GET /orders/:id`): the instrumentation only
 *   knows the method, and Fastify has routed the request before its first hook;
 * - answers W3C Trace Context level 2 `traceresponse: 00-<trace-id>-<span-id>-<flags>`, so
 *   whoever placed an order can look its trace up in the trace UI. Set this early, it is on
 *   every answer, the 400 and 413 of the body parser included.
 */
export function annotateServerSpan(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const span = trace.getSpan(context.active());
  const spanContext = span?.spanContext();
  if (span !== undefined && spanContext !== undefined && trace.isSpanContextValid(spanContext)) {
    const route = routeTemplate(request);
    if (route !== undefined) {
      span.updateName(`${request.method} ${route}`);
      span.setAttribute(ATTR_HTTP_ROUTE, route);
    }
    const flags = spanContext.traceFlags.toString(16).padStart(2, '0');
    reply.header('traceresponse', `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`);
  }
  done();
}
