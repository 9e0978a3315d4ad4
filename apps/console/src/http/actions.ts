import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../pages/html';
import { layout, sendHtml } from '../pages/layout';
import type { Access } from './access';

/** What an action changed, logged as one line with the action's name. */
export type ActionLog = Record<string, unknown>;

export interface ActionResult {
  readonly changed: ActionLog;
  /** Where the browser goes next (303), or a page to render. */
  readonly redirect?: string;
  readonly page?: { readonly title: string; readonly current: string; readonly content: SafeHtml };
  /** The JSON answer for scripts (Accept: application/json). */
  readonly json?: unknown;
}

export type ActionHandler = (request: FastifyRequest, log: FastifyBaseLogger) => Promise<ActionResult>;

const wantsJson = (request: FastifyRequest): boolean =>
  (request.headers.accept ?? '').includes('application/json') &&
  !(request.headers.accept ?? '').includes('text/html');

/** Answers 403 with the reason, as a page or as JSON. */
export function refuse(
  request: FastifyRequest,
  reply: FastifyReply,
  access: Access,
  reason: string,
): FastifyReply {
  request.log.warn({ action: request.routeOptions.url, reason }, 'action refused');
  if (wantsJson(request)) return reply.code(403).send({ error: 'forbidden', reason });
  const context = access.pageContext(request, reply);
  return sendHtml(
    reply,
    layout(
      'Not allowed',
      context,
      '',
      html`<p class="refused" role="alert">${reason}</p>
        <p><a href="${request.headers.referer ?? '/'}">Back</a></p>`,
    ),
    403,
  );
}

/**
 * Registers a POST route that changes something: refused with 403 unless the console has a token
 * and the caller presents it (session + CSRF token, or bearer); every change is logged.
 */
export function registerAction(
  app: FastifyInstance,
  access: Access,
  name: string,
  path: string,
  handler: ActionHandler,
): void {
  app.post(path, {
    preHandler: (request, reply, done) => {
      const refusal = access.refusal(request);
      if (refusal !== undefined) {
        refuse(request, reply, access, refusal.reason);
        return;
      }
      if (access.usesBearer(request)) {
        done();
        return;
      }
      app.csrfProtection(request, reply, done);
    },
    handler: async (request, reply) => {
      const log = request.log.child({ action: name });
      const result = await handler(request, log);
      log.info(result.changed, `action ${name}`);
      if (wantsJson(request)) return reply.send(result.json ?? result.changed);
      if (result.redirect !== undefined) return reply.redirect(result.redirect, 303);
      const page = result.page ?? { title: 'Done', current: '', content: html`<p>Done.</p>` };
      return sendHtml(
        reply,
        layout(page.title, access.pageContext(request, reply), page.current, page.content),
      );
    },
  });
}

/** CSRF failures of @fastify/csrf-protection become the same 403 page as other refusals. */
export function handleCsrfErrors(app: FastifyInstance, access: Access): void {
  app.setErrorHandler((error: { code?: string; statusCode?: number; message: string }, request, reply) => {
    if (error.code?.startsWith('FST_CSRF_')) {
      return refuse(
        request,
        reply,
        access,
        'The form has no valid CSRF token (it may be from an earlier session): reload the page and try again.',
      );
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    if (wantsJson(request)) return reply.code(status).send({ error: error.message });
    return sendHtml(
      reply,
      layout(
        status >= 500 ? 'Something failed' : 'Bad request',
        access.pageContext(request, reply),
        '',
        html`<p class="refused" role="alert">${error.message}</p>`,
      ),
      status,
    );
  });
}
