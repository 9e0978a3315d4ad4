import { z } from 'zod';
import type { GroupView } from '../cluster/cluster-view';
import { isEmptyGroup, type GroupKind, type OrderedGroups } from '../cluster/group-order';
import { html, type SafeHtml } from './html';

/** `?filter=` (and `?q=`, its name before): a part of the group's name, at most 200 characters. */
const groupsQuerySchema = z.object({
  filter: z.string().max(200, 'at most 200 characters').optional(),
  q: z.string().max(200, 'at most 200 characters').optional(),
});

/** The page's filter from its query string; a 400 naming the field when it is not one string. */
export function parseGroupsFilter(query: unknown): string {
  const parsed = groupsQuerySchema.safeParse(query ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw Object.assign(new Error(`${issue?.path.join('.') ?? 'filter'}: ${issue?.message ?? 'invalid'}`), {
      statusCode: 400,
    });
  }
  return (parsed.data.filter ?? parsed.data.q ?? '').trim();
}

/** Why an empty group is there, and what to do about it, by where it belongs. */
function emptyHint(group: GroupView, kind: GroupKind): SafeHtml {
  if (kind === 'pipeline')
    return html`<small>no member: the service is not running (its offsets are kept)</small>`;
  return html`<small
    >left behind by a tool or a test? Delete it with
    <code>npm run kafka:groups -- --delete --group ${group.groupId}</code></small
  >`;
}

/** The badge an empty group gets, before its details. */
export function emptyMark(group: GroupView, kind: GroupKind): SafeHtml {
  return isEmptyGroup(group)
    ? html`<p class="empty-group" data-field="empty"><strong>empty</strong> · ${emptyHint(group, kind)}</p>`
    : html``;
}

/**
 * The groups in three parts: the pipeline's, the console's, then every other group folded in a
 * closed <details> with its count (opened when a filter is set: the user is looking for one).
 */
export function groupsList(
  ordered: OrderedGroups<GroupView>,
  filter: string,
  section: (group: GroupView, kind: GroupKind) => SafeHtml,
): SafeHtml {
  const matching = filter ? html` matching “${filter}”` : '';
  const part = (kind: GroupKind, groups: readonly GroupView[], none: SafeHtml) =>
    groups.length === 0 ? html`<p class="none">${none}</p>` : html`${groups.map((g) => section(g, kind))}`;
  return html`<section class="group-kind" data-kind="pipeline" aria-labelledby="pipeline-groups">
      <h2 id="pipeline-groups">The pipeline’s groups</h2>
      ${part('pipeline', ordered.pipeline, html`None of the five services’ groups${matching} exists.`)}
    </section>
    <section class="group-kind" data-kind="console" aria-labelledby="console-groups">
      <h2 id="console-groups">The console’s groups</h2>
      ${part('console', ordered.console, html`No group of the console${matching}.`)}
    </section>
    <details id="other-groups" class="group-kind" data-kind="other" ${filter ? html`open` : ''}>
      <summary>
        <h2>Other groups (<span data-field="other-count">${ordered.other.length}</span>)</h2>
      </summary>
      ${part('other', ordered.other, html`No other group${matching}.`)}
    </details>`;
}
