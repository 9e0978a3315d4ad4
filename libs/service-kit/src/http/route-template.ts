import type { Request } from 'express';

/** The route template (`/orders/:id`) that served the request; undefined before or without routing. */
export function routeTemplate(request: Request): string | undefined {
  const path = (request.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${request.baseUrl}${path}` : undefined;
}
