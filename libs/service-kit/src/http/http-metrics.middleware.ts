import type { NextFunction, Request, Response } from 'express';
import { PipelineMetrics } from '@pipeline/observability';
import { routeTemplate } from './route-template';

/**
 * Counts and times every request, including those answered before routing (malformed JSON 400,
 * body too large 413, unknown path 404): registered ahead of the body parser. Labelled by route
 * template, never by URL, so the series stay bounded; `unmatched` when no route took it.
 */
export function httpMetricsMiddleware(request: Request, response: Response, next: NextFunction): void {
  const start = process.hrtime.bigint();
  response.once('finish', () => {
    const labels = {
      method: request.method,
      route: routeTemplate(request) ?? 'unmatched',
      status_code: String(response.statusCode),
    };
    PipelineMetrics.httpRequests.inc(labels);
    PipelineMetrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
  });
  next();
}
