import type { Availability, Experiment } from '@pipeline/experiments';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ConsoleDeps } from '../console-deps';
import type { ExperimentRuns } from '../experiments/experiment-runs';
import { registerAction } from '../http/actions';
import { EventStreams } from '../http/event-streams';
import { stepsHtml, verdictHtml } from './experiment-evidence';
import { html, type SafeHtml } from './html';
import { actionButton, csrfField, layout, type PageContext, sendHtml } from './layout';

const RunParams = z.object({
  id: z.string().regex(/^[a-z0-9-]{1,64}$/, 'must be an experiment id (lowercase letters, digits, dashes)'),
});

function sectionHtml(
  runs: ExperimentRuns,
  experiment: Experiment,
  availability: Availability | undefined,
  context: PageContext,
): SafeHtml {
  const { id } = experiment;
  const running = runs.running();
  const mine = running?.experimentId === id ? running : undefined;
  const last = runs.lastResult(id);
  const state =
    mine !== undefined
      ? 'running'
      : availability?.available === false
        ? 'unavailable'
        : last === undefined
          ? 'idle'
          : last.verdict.passed
            ? 'passed'
            : 'failed';
  return html`<section class="experiment" id="experiment-${id}" data-experiment="${id}" data-state="${state}">
    <h2>${experiment.title}</h2>
    <p>${experiment.description}</p>
    <p class="criterion"><strong>Criterion:</strong> ${experiment.criterion}</p>
    ${
      availability?.available === false
        ? html`<div class="unavailable" role="note" data-field="availability">
            <p><strong>Not available here:</strong> ${availability.reason}</p>
            <p><strong>How to run it:</strong> ${availability.howTo}</p>
          </div>`
        : html`<div class="row">
            <form method="post" action="/experiments/${id}/run" data-experiment-action="${id}">
              ${csrfField(context)} ${actionButton(context, 'Run')}
            </form>
            ${
              mine === undefined
                ? ''
                : html`<form method="post" action="/experiments/stop" data-experiment-action="${id}">
                    ${csrfField(context)} ${actionButton(context, mine.stopping ? 'Stopping…' : 'Stop')}
                  </form>`
            }
          </div>`
    }
    <p class="action-result" id="action-result-${id}" role="status"></p>
    ${
      mine === undefined
        ? ''
        : html`<p class="running">
              ${mine.stopping ? 'Stopping (cleaning up)…' : 'Running…'} started
              ${mine.startedAt.toISOString()}, on names starting with
              <code data-field="running-prefix">${mine.namePrefix}</code>
            </p>
            ${stepsHtml(mine.steps)}`
    }
    ${
      mine !== undefined || last === undefined
        ? ''
        : html`${verdictHtml(id, last.verdict, last.durationMs)}
            <details class="run-steps">
              <summary>
                Steps (${last.steps.length}) of the run at ${last.startedAt.toISOString()}, on names starting
                with
                <code data-field="prefix">${last.namePrefix}</code>
              </summary>
              ${stepsHtml(last.steps)}
            </details>`
    }
  </section>`;
}

export function registerExperimentsPage(app: FastifyInstance, deps: ConsoleDeps): void {
  const { access, experiments: runs } = deps;
  // What each experiment's check said last: the live sections reuse it instead of asking again.
  const known = new Map<string, Availability>();
  const experimentOf = (params: unknown): Experiment => {
    const parsed = RunParams.safeParse(params);
    if (!parsed.success)
      throw Object.assign(new Error(`id: ${parsed.error.issues[0]?.message ?? 'invalid'}`), {
        statusCode: 400,
      });
    const experiment = runs.find(parsed.data.id);
    if (experiment === undefined)
      throw Object.assign(new Error(`There is no experiment "${parsed.data.id}".`), { statusCode: 404 });
    return experiment;
  };

  app.get('/experiments', async (request, reply) => {
    const context = access.pageContext(request, reply);
    const checked = await Promise.all(runs.experiments.map((experiment) => runs.availability(experiment)));
    runs.experiments.forEach((experiment, i) => known.set(experiment.id, checked[i]!));
    const sections = runs.experiments.map((experiment, i) =>
      sectionHtml(runs, experiment, checked[i], context),
    );
    const page = html`<link rel="stylesheet" href="/assets/experiments.css" />
      <script src="/assets/experiments.js" defer></script>
      <p>
        The classic Kafka experiments, each on topics and groups of its own (named
        <code>lab.&lt;experiment&gt;.&lt;random&gt;.…</code>, never the pipeline's), against the broker this
        console uses. Each run ends by deleting what it created; the runner then checks that nothing with its
        prefix is left. One experiment runs at a time.
      </p>
      <div id="experiments" data-stream="/experiments/stream">${sections}</div>`;
    return sendHtml(reply, layout('Experiments', context, '/experiments', page));
  });

  // Server-sent events: each message is one experiment's section, rendered as on the page.
  const streams = new EventStreams('experiment', {
    max: deps.config.maxExperimentStreams,
    variable: 'CONSOLE_MAX_EXPERIMENT_STREAMS',
    maxBufferedBytes: deps.config.streamMaxBufferedBytes,
  });
  app.get('/experiments/stream', (request, reply) => {
    const context = access.pageContext(request, reply);
    streams.accept(request, reply, (stream) =>
      runs.subscribe((id) => {
        const experiment = runs.find(id);
        if (experiment === undefined) return;
        const section = sectionHtml(runs, experiment, known.get(id), context);
        stream.send('experiment', JSON.stringify({ id, html: section.value }));
      }),
    );
  });

  registerAction(app, access, 'experiment-run', '/experiments/:id/run', async (request) => {
    const experiment = experimentOf(request.params);
    const run = await runs.start(experiment.id);
    return {
      changed: { experiment: experiment.id, namePrefix: run.namePrefix },
      redirect: `/experiments#experiment-${experiment.id}`,
      json: { experiment: experiment.id, namePrefix: run.namePrefix, startedAt: run.startedAt.toISOString() },
    };
  });

  registerAction(app, access, 'experiment-stop', '/experiments/stop', () => {
    const stopped = runs.stop();
    if (stopped === undefined)
      return Promise.reject(Object.assign(new Error('No experiment is running.'), { statusCode: 409 }));
    return Promise.resolve({
      changed: { experiment: stopped.experimentId },
      redirect: `/experiments#experiment-${stopped.experimentId}`,
      json: { stopped: stopped.experimentId },
    });
  });
}
