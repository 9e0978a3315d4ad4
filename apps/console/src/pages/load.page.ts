import { DefaultMix, DefaultTraceRatio } from '@pipeline/load';
import type { FastifyInstance } from 'fastify';
import type { ConsoleDeps } from '../console-deps';
import { registerAction } from '../http/actions';
import { loadConfigOf, LoadLimits, parseLoadForm } from '../load/load-form';
import { LoadRunner } from '../load/load-runner';
import { readReportFile, reportCsp } from '../load/report-files';
import { html } from './html';
import { actionButton, csrfField, layout, type PageContext, sendHtml } from './layout';
import { describeModel, statusView } from './load-view';

/** The running page refreshes its status this often: one in-memory read per open page. */
const STATUS_REFRESH_MS = 1000;

function startForm(context: PageContext) {
  return html`<form method="post" action="/load/start" id="load-form" aria-label="Start a load run">
    ${csrfField(context)}
    <div class="row">
      <label
        >Rate (orders/s)
        <input name="rate" type="number" min="0.1" max="${LoadLimits.maxRate}" step="any" value="20" required
      /></label>
      <label
        >Duration (s)
        <input
          name="duration"
          type="number"
          min="1"
          max="${LoadLimits.maxDurationSeconds}"
          step="1"
          value="30"
          required
      /></label>
      <label>Mix <input name="mix" value="${DefaultMix}" size="36" /></label>
      <label
        >Trace ratio
        <input name="traceRatio" type="number" min="0" max="1" step="any" value="${DefaultTraceRatio}"
      /></label>
    </div>
    <div class="row">
      <label>Ramp steps (orders/s) <input name="steps" placeholder="5,10,20" /></label>
      <label
        >Step (s)
        <input
          name="stepSeconds"
          type="number"
          min="1"
          max="${LoadLimits.maxStepSeconds}"
          step="1"
          value="10"
      /></label>
      <small
        >A ramp replaces rate and duration: each step's rate for its seconds, as loadgen's --steps.</small
      >
    </div>
    ${actionButton(context, 'Start load')}
  </form>`;
}

export function registerLoadPage(app: FastifyInstance, deps: ConsoleDeps): void {
  const { access, config } = deps;
  const runner = new LoadRunner(
    config.load.reportDir,
    { info: (message) => app.log.info(message), error: (message) => app.log.error(message) },
    `${config.kafka.group}.load-`,
  );
  // The console's shutdown (app.close() in main.ts) aborts a running load and waits for it.
  app.addHook('onClose', async () => runner.close());

  app.get('/load', async (request, reply) => {
    const context = access.pageContext(request, reply);
    const page = html`<p>
        Drives <code>POST /orders</code> on <code>${config.services.order[0] ?? ''}</code> with the engine of
        <code>npm run loadgen</code> (<code>@pipeline/load</code>) and follows each order to its terminal
        event on <code>${config.kafka.topicPrefix}orders</code>. One run at a time; the charts of the live
        flow show it too. Reports go to <code>${config.load.reportDir}</code>.
      </p>
      ${startForm(context)}
      <div id="load-status" data-refresh-url="/load/status" data-refresh-ms="${STATUS_REFRESH_MS}">
        ${statusView(runner.current, context)}
      </div>`;
    return sendHtml(reply, layout('Load', context, '/load', page));
  });

  app.get('/load/status', async (request, reply) =>
    sendHtml(reply, statusView(runner.current, access.pageContext(request, reply))),
  );

  registerAction(app, access, 'load-start', '/load/start', (request) => {
    const form = parseLoadForm(request.body);
    const state = runner.start(loadConfigOf(form, config));
    const model = state.status === 'running' ? describeModel(state.config) : '';
    return Promise.resolve({
      changed: { model, mix: form.mix, traceRatio: form.traceRatio },
      redirect: '/load',
      json: { status: 'running', model },
    });
  });

  registerAction(app, access, 'load-stop', '/load/stop', async () => {
    const state = await runner.stop();
    const report = state.status === 'finished' ? state.report : undefined;
    const changed = report
      ? {
          stoppedAfterSeconds: report.stopped?.afterSeconds,
          unfinished: report.stopped?.unfinished,
          placed: report.totals.placed,
          verdict: report.verdict.result,
        }
      : { status: state.status };
    return { changed, redirect: '/load', json: { status: state.status, ...changed } };
  });

  app.get<{ Params: { file: string } }>('/load/reports/:file', async (request, reply) => {
    const page = await readReportFile(config.load.reportDir, request.params.file);
    if (page === undefined) return reply.code(404).type('text/plain').send('no such report');
    // Its own CSP (the onSend hook keeps it): the standalone report styles itself inline.
    return reply
      .header('content-security-policy', reportCsp(page))
      .type('text/html; charset=utf-8')
      .send(page);
  });
}
