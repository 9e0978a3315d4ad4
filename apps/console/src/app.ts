import { readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ConsoleDeps } from './console-deps';
import { handleCsrfErrors } from './http/actions';
import { registerClusterPages } from './pages/cluster.page';
import { registerDeadLetterPages } from './pages/dead-letters.page';
import { registerExperimentsPage } from './pages/experiments.page';
import { registerFlowPage } from './pages/flow.page';
import { registerJourneyPage } from './pages/journey.page';
import { registerLoadPage } from './pages/load.page';
import { registerLoginPages } from './pages/login.page';

/** The stylesheets and scripts of public/, read once; the build copies them beside dist/…/src. */
const ASSETS_DIR = join(__dirname, '..', 'public');
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};
/** uPlot (the charts) is served from its npm package, on this origin: the CSP allows only 'self'. */
const UPLOT_DIR = dirname(require.resolve('uplot/dist/uPlot.iife.min.js'));
const VENDOR_ASSETS = ['uPlot.iife.min.js', 'uPlot.min.css'];

function readAssets(): Map<string, { type: string; body: Buffer }> {
  const files = [
    ...readdirSync(ASSETS_DIR).map((name) => ({ name, path: join(ASSETS_DIR, name) })),
    ...VENDOR_ASSETS.map((name) => ({ name, path: join(UPLOT_DIR, name) })),
  ];
  return new Map(
    files
      .filter(({ name }) => CONTENT_TYPES[extname(name)] !== undefined)
      .map(({ name, path }) => [name, { type: CONTENT_TYPES[extname(name)]!, body: readFileSync(path) }]),
  );
}

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
    // A route may set a policy of its own (a load report: no script, its inline stylesheet by hash).
    if (!reply.hasHeader('content-security-policy'))
      void reply.header(
        'content-security-policy',
        "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
      );
    return payload;
  });

  const assets = readAssets();
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
  registerLoadPage(app, deps);
  registerExperimentsPage(app, deps);
  return app;
}
