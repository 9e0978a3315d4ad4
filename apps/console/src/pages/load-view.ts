import {
  renderSummary,
  type LoadConfig,
  type LoadProgress,
  type LoadReport,
  type PercentileSummary,
} from '@pipeline/load';
import type { LoadRunState } from '../load/load-runner';
import { html, type SafeHtml } from './html';
import { actionButton, csrfField, type PageContext, tableHead } from './layout';

const VerdictClass = {
  PASS: 'status-confirmed',
  FAIL: 'status-cancelled',
  STOPPED: 'status-pending',
} as const;

const ms = (value: number): string => `${value.toFixed(1)} ms`;

export function describeModel(config: LoadConfig): string {
  const { model } = config;
  if (model.kind === 'open') return `${model.rate} orders/s for ${model.durationSeconds} s`;
  if (model.kind === 'stepped')
    return `a ramp of ${model.steps.join(', ')} orders/s, ${model.stepSeconds} s each`;
  return `${model.clients} closed-model clients for ${model.durationSeconds} s`;
}

function progressTable(progress: LoadProgress | undefined): SafeHtml {
  if (progress === undefined)
    return html`<p data-field="phase">Joining <code>orders</code> with a fresh consumer group…</p>`;
  const last = progress.last;
  const row = (label: string, field: string, value: string | number) =>
    html`<tr>
      <th scope="row">${label}</th>
      <td class="num" data-field="${field}">${value}</td>
    </tr>`;
  return html`<table id="load-progress">
    ${tableHead('', 'Now')}
    <tbody>
      ${row('Phase', 'phase', progress.phase)}
      ${row('Elapsed', 'elapsed', `${progress.elapsedSeconds.toFixed(0)} s`)}
      ${row('Offered', 'offered', `${progress.offered} (${last?.offered ?? 0}/s)`)}
      ${row('Placed (202)', 'placed', `${progress.placed} (${last?.placed ?? 0}/s)`)}
      ${row('Terminal', 'completed', `${progress.completed} (${last?.terminal ?? 0}/s)`)}
      ${row('In flight (HTTP)', 'in-flight', progress.inFlight)}
      ${row('Awaiting terminal', 'outstanding', progress.outstanding)}
      ${row('e2e p99', 'e2e-p99', ms(progress.e2eP99))} ${row('Total lag', 'lag', progress.lag ?? '?')}
    </tbody>
  </table>`;
}

const percentiles = (label: string, s: PercentileSummary) =>
  html`<tr>
    <th scope="row">${label}</th>
    <td class="num">${ms(s.p50)}</td>
    <td class="num">${ms(s.p90)}</td>
    <td class="num">${ms(s.p99)}</td>
    <td class="num">${ms(s.p999)}</td>
    <td class="num">${ms(s.max)}</td>
    <td class="num">${s.count}</td>
  </tr>`;

/** The end of a run: the same summary as loadgen prints, its verdict and its report link. */
export function summaryView(report: LoadReport, htmlFile: string): SafeHtml {
  const { totals: t, verdict } = report;
  const errors = Object.values(t.httpErrors).reduce((sum, n) => sum + n, 0);
  return html`<section id="load-summary" data-result="${verdict.result}">
    <h2>Last run: ${describeModel(report.config)}</h2>
    <p>
      <span class="status ${VerdictClass[verdict.result]}" data-field="verdict">${verdict.result}</span>
      ${verdict.reasons.join('; ')}
    </p>
    <dl class="summary">
      <dt>Started</dt>
      <dd>${report.startedAt}</dd>
      <dt>Load</dt>
      <dd data-field="duration">${report.durationSeconds.toFixed(1)} s</dd>
      <dt>Offered / placed</dt>
      <dd><span data-field="offered">${t.offered}</span> / <span data-field="placed">${t.placed}</span></dd>
      <dt>${report.stopped ? 'Unfinished (stopped: no drain)' : 'Lost'}</dt>
      <dd data-field="${report.stopped ? 'unfinished' : 'lost'}">
        ${report.stopped ? report.stopped.unfinished : t.lost}
      </dd>
      <dt>Duplicated</dt>
      <dd data-field="duplicated">${t.duplicated}</dd>
      <dt>Unexpected outcome</dt>
      <dd data-field="unexpected">${t.unexpectedOutcome}</dd>
      <dt>Dropped / HTTP errors</dt>
      <dd>${t.dropped} / ${errors}</dd>
    </dl>
    <table id="load-percentiles">
      ${tableHead('Latency', 'p50', 'p90', 'p99', 'p99.9', 'max', 'n')}
      <tbody>
        ${percentiles('end to end', report.latency.e2e)}
        ${percentiles('confirmed', report.latency.e2eConfirmed)}
        ${percentiles('cancelled', report.latency.e2eCancelled)} ${percentiles('HTTP', report.latency.http)}
      </tbody>
    </table>
    <p><a href="/load/reports/${htmlFile}" data-link="report">HTML report with charts</a> (${htmlFile})</p>
    <details>
      <summary>The loadgen summary</summary>
      <pre data-field="summary">${renderSummary(report).join('\n')}</pre>
    </details>
  </section>`;
}

/** The refreshed part of the page: the run now (with its stop button), or the last result. */
export function statusView(state: LoadRunState | undefined, context: PageContext): SafeHtml {
  if (state === undefined) return html`<p id="load-idle">No load run yet.</p>`;
  if (state.status === 'failed')
    return html`<p class="refused" role="alert" id="load-failed">
      The run started ${state.startedAt} failed: ${state.error}
    </p>`;
  if (state.status === 'finished') return summaryView(state.report, state.files.html);
  return html`<section id="load-running">
    <h2>Running: ${describeModel(state.config)}</h2>
    <p>Started ${state.startedAt}${state.stopping ? ', stopping…' : ''}.</p>
    ${progressTable(state.progress)}
    <form method="post" action="/load/stop" class="row">
      ${csrfField(context)}${actionButton(context, 'Stop the run')}
    </form>
  </section>`;
}
