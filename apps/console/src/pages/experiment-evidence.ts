import type { Evidence, ExperimentStep, ExperimentVerdict } from '@pipeline/experiments';
import { html, type SafeHtml } from './html';
import { tableHead } from './layout';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** One piece of evidence as the page shows it: a table, log lines, or named values. */
export function evidenceHtml(evidence: Evidence): SafeHtml {
  switch (evidence.kind) {
    case 'table':
      return html`<table class="evidence" data-evidence="table">
        <caption>
          ${evidence.caption}
        </caption>
        ${tableHead(...evidence.columns)}
        <tbody>
          ${evidence.rows.map(
            (row) =>
              html`<tr>
                ${row.map((cell) => html`<td>${cell}</td>`)}
              </tr>`,
          )}
        </tbody>
      </table>`;
    case 'log':
      return html`<figure class="evidence" data-evidence="log">
        <figcaption>${evidence.caption}</figcaption>
        <pre>${evidence.lines.join('\n')}</pre>
      </figure>`;
    case 'values':
      return html`<table class="evidence" data-evidence="values">
        <caption>
          ${evidence.caption}
        </caption>
        <tbody>
          ${evidence.entries.map(
            ([name, value]) =>
              html`<tr>
                <th scope="row">${name}</th>
                <td>${value}</td>
              </tr>`,
          )}
        </tbody>
      </table>`;
  }
}

/** The steps so far, each at its time since the start, with its evidence folded. */
export function stepsHtml(steps: readonly ExperimentStep[]): SafeHtml {
  return html`<ol class="steps">
    ${steps.map(
      (step) =>
        html`<li>
          <span class="num">+${seconds(step.atMs)}</span> ${step.text}
          ${
            step.evidence === undefined
              ? ''
              : html`<details>
                  <summary>${step.evidence.caption}</summary>
                  ${evidenceHtml(step.evidence)}
                </details>`
          }
        </li>`,
    )}
  </ol>`;
}

export function verdictHtml(id: string, verdict: ExperimentVerdict, durationMs: number): SafeHtml {
  return html`<p class="verdict ${verdict.passed ? 'pass' : 'fail'}" id="verdict-${id}" role="status">
      <strong>${verdict.passed ? 'PASS' : 'FAIL'}</strong> ${verdict.summary}
      <small>(${seconds(durationMs)})</small>
    </p>
    ${verdict.evidence.map(evidenceHtml)}`;
}
