import type { FastifyReply } from 'fastify';
import { html, type SafeHtml } from './html';

export interface PageContext {
  /** Why actions are refused, when they are: read-only console, or not signed in. */
  readonly readOnlyReason: string | undefined;
  readonly signedIn: boolean;
  readonly tokenConfigured: boolean;
  /** CSRF token for the forms of this page (empty when actions are off). */
  readonly csrf: string;
}

const NAV = [
  ['/', 'Live flow'],
  ['/topics', 'Topics'],
  ['/groups', 'Consumer groups'],
  ['/dead-letters', 'Dead letters'],
  ['/load', 'Load'],
  ['/experiments', 'Experiments'],
] as const;

/** The page frame: navigation, the read-only banner, the content. */
export function layout(title: string, context: PageContext, current: string, content: SafeHtml): SafeHtml {
  const nav = NAV.map(
    ([href, label]) =>
      html`<li><a href="${href}" ${current === href ? html` aria-current="page"` : ''}>${label}</a></li>`,
  );
  const session = !context.tokenConfigured
    ? ''
    : context.signedIn
      ? html`<form method="post" action="/logout" class="inline">
          ${csrfField(context)}<button type="submit">Sign out</button>
        </form>`
      : html`<a href="/login">Sign in</a>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · order pipeline console</title>
        <link rel="stylesheet" href="/assets/console.css" />
        <script src="/assets/console.js" defer></script>
      </head>
      <body>
        <header>
          <p class="brand">order pipeline · console</p>
          <nav aria-label="Pages">
            <ul>
              ${nav}
            </ul>
          </nav>
          <div class="session">${session}</div>
        </header>
        ${
          context.readOnlyReason === undefined
            ? ''
            : html`<p class="banner" role="status" id="read-only-reason">${context.readOnlyReason}</p>`
        }
        <main>
          <h1>${title}</h1>
          ${content}
        </main>
      </body>
    </html>`;
}

export const csrfField = (context: PageContext): SafeHtml =>
  html`<input type="hidden" name="_csrf" value="${context.csrf}" />`;

/** A submit button for an action; it stays enabled when refused, so the 403 page says why. */
export const actionButton = (context: PageContext, label: string, extra: SafeHtml | string = ''): SafeHtml =>
  html`<button
    type="submit"
    ${context.readOnlyReason === undefined ? '' : html`aria-describedby="read-only-reason"`}
    ${extra}
  >
    ${label}
  </button>`;

/** A table's header row: one column header per label. */
export const tableHead = (...labels: readonly string[]): SafeHtml =>
  html`<thead>
    <tr>
      ${labels.map((label) => html`<th scope="col">${label}</th>`)}
    </tr>
  </thead>`;

/** Answers with a rendered page or fragment. */
export const sendHtml = (reply: FastifyReply, page: SafeHtml, status = 200): FastifyReply =>
  reply.code(status).type('text/html; charset=utf-8').send(page.value);
