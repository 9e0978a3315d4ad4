import { ServiceNames, type ServiceName } from '@pipeline/contracts';
import type { FastifyInstance } from 'fastify';
import type { ConsoleDeps } from '../console-deps';
import type { FlowSample } from '../flow/flow-sample';
import { toSeries } from '../flow/flow-series';
import { flowDiagram, serviceStates, type ServiceState } from './flow-diagram.view';
import { html, type SafeHtml } from './html';
import { sendHtml } from './layout';

/** The picture (refreshed as a fragment) and the charts (drawn by flow-charts.js from /flow/series). */
export function flowPictureSections(deps: Pick<ConsoleDeps, 'config' | 'sampler'>): SafeHtml {
  const every = deps.config.sampleIntervalMs;
  const minutes = Math.round((deps.config.historyPoints * every) / 60_000);
  return html`<link rel="stylesheet" href="/assets/uPlot.min.css" />
    <link rel="stylesheet" href="/assets/flow.css" />
    <script src="/assets/uPlot.iife.min.js" defer></script>
    <script src="/assets/flow-charts.js" defer></script>
    <section aria-labelledby="picture-heading">
      <h2 id="picture-heading">The pipeline</h2>
      <p>
        Events/s on each arrow, each consumer group's lag as a bar (committed offsets against the end of the
        log, from the admin API: it holds while a service is down), and each service's outbox backlog and dead
        letters (its /metrics). Sampled every ${every / 1000} s.
      </p>
      <div id="flow-diagram" data-refresh-url="/flow/diagram" data-refresh-ms="${every}">
        ${flowDiagram(deps.sampler.latest())}
      </div>
    </section>
    <section aria-labelledby="charts-heading">
      <h2 id="charts-heading">Over time</h2>
      <p>The last ${minutes} minutes, one point every ${every / 1000} s.</p>
      <div id="flow-charts" data-series-url="/flow/series" data-refresh-ms="${every}" data-points="0">
        <p class="no-script">
          The charts need JavaScript; their data is at <a href="/flow/series">/flow/series</a> (JSON).
        </p>
      </div>
    </section>`;
}

/** One service as the picture marks it: its states in words, and why it is stalled. */
export interface ServiceMarks {
  readonly states: readonly ServiceState[];
  readonly stalledReason: string | null;
}

/** The picture's marks of the latest sample, for scripts (`picture` in `/flow/series`). */
export function pictureMarks(
  sample: FlowSample | undefined,
): { readonly at: number; readonly services: Record<ServiceName, ServiceMarks> } | null {
  if (sample === undefined) return null;
  const marks = (service: ServiceName): ServiceMarks => ({
    states: serviceStates(sample, service),
    stalledReason: sample.groups[service].stalledReason,
  });
  return {
    at: sample.at,
    services: Object.fromEntries(ServiceNames.map((service) => [service, marks(service)])) as Record<
      ServiceName,
      ServiceMarks
    >,
  };
}

export function registerFlowPicture(
  app: FastifyInstance,
  deps: Pick<ConsoleDeps, 'config' | 'sampler'>,
): void {
  const { sampler, config } = deps;
  app.get('/flow/diagram', (_request, reply) => sendHtml(reply, flowDiagram(sampler.latest())));
  app.get('/flow/series', (_request, reply) =>
    reply.header('cache-control', 'no-store').send({
      ...toSeries(sampler.history.last(), config.sampleIntervalMs),
      picture: pictureMarks(sampler.latest()),
    }),
  );
}
