import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ConsoleDeps } from './console-deps';
import { handleCsrfErrors } from './http/actions';
import { registerClusterPages } from './pages/cluster.page';
import { registerDeadLetterPages } from './pages/dead-letters.page';
import { registerFlowPage } from './pages/flow.page';
import { registerJourneyPage } from './pages/journey.page';
import { registerLoginPages } from './pages/login.page';

/** The stylesheet and the one script, read once; the build copies them beside dist/…/src. */
const ASSETS_DIR = join(__dirname, '..', 'public');
const ASSETS: Readonly<Record<string, string>> = {
  'console.css': 'text/css; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
};

export async function buildConsole(deps: ConsoleDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: deps.config.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie', 'body.token'],
    },
    bodyLimit: 64 * 1024,
    // Live-flow streams never go idle: close them on shutdown instead of waiting.
    forceCloseConnections: true,
  });
  await deps.access.register(app);
  handleCsrfErrors(app, deps.access);

  app.addHook('onSend', async (_request, reply, payload) => {
    // No framing, no sniffing, scripts and styles from this origin only.
    void reply.header('x-frame-options', 'DENY');
    void reply.header('x-content-type-options', 'nosniff');
    void reply.header('referrer-policy', 'same-origin');
    void reply.header(
      'content-security-policy',
      "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
    );
    return payload;
  });

  const assets = new Map(
    Object.entries(ASSETS).map(([name, type]) => [
      name,
      { type, body: readFileSync(join(ASSETS_DIR, name)) },
    ]),
  );
  app.get<{ Params: { name: string } }>('/assets/:name', async (request, reply) => {
    const asset = assets.get(request.params.name);
    if (asset === undefined) return reply.code(404).send({ error: 'not found' });
    return reply.type(asset.type).header('cache-control', 'no-cache').send(asset.body);
  });
  app.get('/health', (_request, reply) => reply.send({ status: 'ok' }));

  registerLoginPages(app, deps);
  registerFlowPage(app, deps);
  registerJourneyPage(app, deps);
  registerClusterPages(app, deps);
  registerDeadLetterPages(app, deps);
  return app;
}
