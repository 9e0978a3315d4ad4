import type { FastifyRequest } from 'fastify';

/** The route template (`/orders/:id`) that serves the request; undefined when no route matched. */
export function routeTemplate(request: FastifyRequest): string | undefined {
  // Fastify routes before the first hook runs; the not-found handler has no template.
  return request.is404 ? undefined : request.routeOptions.url;
}
