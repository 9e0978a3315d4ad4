import type { FastifyReply, FastifyRequest } from 'fastify';
import { PipelineMetrics } from '@pipeline/observability';
import { routeTemplate } from './route-template';

/**
 * `onResponse`: counts and times every request, including those answered before the handler
 * (malformed JSON 400, body too large 413, unknown path 404). Labelled by route template, never
 * by URL, so the series stay bounded; `unmatched` when no route took it.
 */
export function recordHttpMetrics(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const labels = {
    method: request.method,
    route: routeTemplate(request) ?? 'unmatched',
    status_code: String(reply.statusCode),
  };
  PipelineMetrics.httpRequests.inc(labels);
  // From the request's arrival (before its body was read) to the last byte written.
  PipelineMetrics.httpDuration.observe(labels, reply.elapsedTime / 1e3);
  done();
}
