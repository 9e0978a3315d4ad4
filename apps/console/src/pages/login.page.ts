import type { FastifyInstance } from 'fastify';
import type { ConsoleDeps } from '../console-deps';
import { refuse } from '../http/actions';
import { READ_ONLY_REASON } from '../http/access';
import { html } from './html';
import { csrfField, layout, sendHtml } from './layout';

/** Signing in exchanges the token for a session cookie (HttpOnly, SameSite=Strict). */
export function registerLoginPages(app: FastifyInstance, deps: ConsoleDeps): void {
  const { access } = deps;

  app.get('/login', async (request, reply) => {
    const context = access.pageContext(request, reply);
    const content = !access.tokenConfigured
      ? html`<p>${READ_ONLY_REASON}</p>`
      : html`<form method="post" action="/login" class="row">
          ${csrfField(context)}
          <label
            >Console token <input type="password" name="token" autocomplete="current-password" required
          /></label>
          <button type="submit">Sign in</button>
        </form>`;
    return sendHtml(reply, layout('Sign in', context, '', content));
  });

  app.post(
    '/login',
    { preHandler: (request, reply, done) => app.csrfProtection(request, reply, done) },
    async (request, reply) => {
      if (!access.tokenConfigured) return refuse(request, reply, access, READ_ONLY_REASON);
      const token = (request.body as { token?: unknown } | undefined)?.token;
      if (!access.matches(typeof token === 'string' ? token : undefined)) {
        return refuse(request, reply, access, 'That is not the console token.');
      }
      access.signIn(reply);
      request.log.info({ action: 'sign-in' }, 'action sign-in');
      return reply.redirect('/', 303);
    },
  );

  app.post(
    '/logout',
    { preHandler: (request, reply, done) => app.csrfProtection(request, reply, done) },
    async (request, reply) => {
      access.signOut(request, reply);
      request.log.info({ action: 'sign-out' }, 'action sign-out');
      return reply.redirect('/', 303);
    },
  );
}
