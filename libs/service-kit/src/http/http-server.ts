import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { recordHttpMetrics } from './http-metrics.hook';
import { annotateServerSpan } from './server-span.hook';

/** Larger bodies get 413. */
export const HTTP_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * The services' HTTP server: Fastify, with Express's routing semantics the API was published
 * with (case-insensitive paths, a trailing slash ignored, path parameters as long as a URL can
 * be, where Fastify's default would answer 404 over 100 characters).
 */
export function createHttpAdapter(): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: HTTP_BODY_LIMIT_BYTES,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 16 * 1024 },
  });
}

/**
 * Hooks and body parsing, registered before Nest adds its routes (Fastify gives a route the
 * hooks of its context at registration). Errors of the body parser (malformed JSON 400, body
 * too large 413) reach Nest's exception handler and are answered as JSON by it.
 */
export function configureHttpServer(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', annotateServerSpan);
  fastify.addHook('onResponse', recordHttpMetrics);
  // Read as bytes: Fastify's own string reading would refuse invalid UTF-8 as a body shorter
  // than its Content-Length; decoded here, it reaches validation like any other bad field.
  fastify.removeContentTypeParser(['application/json', 'text/plain']);
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  // An empty body is no body (a DELETE sent with `content-type: application/json`, as Express
  // took it), not Fastify's 400 "Body cannot be empty".
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) =>
    body.length === 0 ? done(null, undefined) : parseJson(request, body.toString('utf8'), done),
  );
  // Only JSON bodies are read, as before: any other content type leaves the body undefined
  // (unread), so validation answers 400 naming the body rather than Fastify a 415.
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
}
