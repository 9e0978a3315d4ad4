import type { FastifyInstance } from 'fastify';
import {
  EVENT_TOPIC_RETENTION_MS,
  EVENT_TOPIC_SEGMENT_MS,
  OLDEST_EVENT_RECORD_MS,
} from '@pipeline/contracts';
import type { ConsoleDeps } from '../console-deps';
import {
  describeGroups,
  describeTopics,
  GroupNotEmptyError,
  listGroupIds,
  resetGroupToEarliest,
  type GroupView,
  type TopicView,
} from '../cluster/cluster-view';
import { groupRules, isEmptyGroup, matchesFilter, orderGroups, type GroupKind } from '../cluster/group-order';
import { Watermarks } from '../cluster/watermarks';
import { registerAction } from '../http/actions';
import { emptyMark, groupsList, parseGroupsFilter } from './groups-list';
import { html, type SafeHtml } from './html';
import { actionButton, csrfField, layout, sendHtml, tableHead } from './layout';

function topicsTable(topics: readonly TopicView[]): SafeHtml {
  const rows = topics.flatMap((topic) =>
    topic.partitions.map(
      (p, index) =>
        html`<tr data-topic="${topic.name}" data-partition="${p.partition}">
          ${
            index === 0
              ? html`<th scope="rowgroup" rowspan="${topic.partitions.length}">
                  ${topic.name}<br /><small>${topic.cleanupPolicy}, retention.ms ${topic.retentionMs}</small>
                </th>`
              : ''
          }
          <td class="num">${p.partition}</td>
          <td class="num" data-field="low">${p.low}</td>
          <td class="num" data-field="high">${p.high}</td>
          <td class="num">${p.leader}</td>
          <td>${p.replicas.join(', ')}</td>
          <td>${p.isr.join(', ')}</td>
        </tr>`,
    ),
  );
  return html`<table id="topics">
    ${tableHead('Topic (cleanup policy)', 'Partition', 'Low watermark', 'High watermark', 'Leader', 'Replicas', 'In sync')}
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

/**
 * One group as `kafka-consumer-groups --describe` shows it; `kind` (on the groups page) marks an
 * empty group and nests its heading under the part's.
 */
const DAY_MS = 24 * 60 * 60 * 1000;
/** `8 days 5 minutes`, `1 day`. */
function duration(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
  const minutes = Math.round((ms % DAY_MS) / 60_000);
  const parts = [`${days} day${days === 1 ? '' : 's'}`];
  if (minutes > 0) parts.push(`${minutes} minute${minutes === 1 ? '' : 's'}`);
  return parts.join(' ');
}
const INBOX_PROTECTS = duration(OLDEST_EVENT_RECORD_MS);

export function groupSection(group: GroupView, resetLink = true, kind?: GroupKind): SafeHtml {
  const short = (memberId: string | undefined) => (memberId === undefined ? '–' : memberId.slice(-12));
  const members = group.members.map(
    (m) =>
      html`<li data-member="${m.memberId}">
        <code>${m.clientId}</code> on ${m.host} <small>(${short(m.memberId)})</small>:
        ${m.assignment.length === 0 ? 'no partitions' : m.assignment.map((a) => html`<span class="assignment">${a.topic} [${a.partitions.join(', ')}]</span> `)}
      </li>`,
  );
  const rows = group.offsets.map(
    (o) =>
      html`<tr data-topic="${o.topic}" data-partition="${o.partition}">
        <td>${o.topic}</td>
        <td class="num">${o.partition}</td>
        <td class="num">${o.committed === '-1' ? '–' : o.committed}</td>
        <td class="num">${o.high}</td>
        <td class="num" data-field="lag">${o.lag}</td>
        <td><small>${short(o.memberId)}</small></td>
      </tr>`,
  );
  const heading =
    kind === undefined
      ? html`<h2 id="group-${group.groupId}">${group.groupId}</h2>`
      : html`<h3 id="group-${group.groupId}">${group.groupId}</h3>`;
  return html`<section
    class="group"
    data-group="${group.groupId}"
    ${isEmptyGroup(group) ? html`data-empty="true"` : ''}
    aria-labelledby="group-${group.groupId}"
  >
    ${heading} ${kind === undefined ? '' : emptyMark(group, kind)}
    <p>
      <span data-field="state">${group.state}</span> ·
      <span data-field="members">${group.members.length}</span> member${group.members.length === 1 ? '' : 's'}
      · total lag
      <span data-field="total-lag">${group.totalLag}</span>
      ${resetLink ? html` · <a href="/groups/${encodeURIComponent(group.groupId)}/reset">reset to earliest…</a>` : ''}
    </p>
    ${
      members.length > 0
        ? html`<ul class="members">
            ${members}
          </ul>`
        : ''
    }
    <table>
      ${tableHead('Topic', 'Partition', 'Committed', 'High watermark', 'Lag', 'Member')}
      <tbody>
        ${rows}
      </tbody>
    </table>
  </section>`;
}

export function registerClusterPages(app: FastifyInstance, deps: ConsoleDeps): void {
  const { access, admin, config } = deps;
  const watermarks = new Watermarks(deps.kafka);
  app.addHook('onClose', () => watermarks.close());
  const describe = (ids: readonly string[]) =>
    describeGroups(admin, ids, (topics) => watermarks.highs(topics));

  app.get('/topics', async (request, reply) => {
    const topics = await describeTopics(admin, config.kafka.topicPrefix);
    const page = html`<p>
        Every topic${config.kafka.topicPrefix ? html` under <code>${config.kafka.topicPrefix}</code>` : ''}:
        the log's retained range per partition is [low, high). Records are keyed by order id on the saga
        topics, so one order stays in one partition.
      </p>
      ${topicsTable(topics)}`;
    return sendHtml(reply, layout('Topics', access.pageContext(request, reply), '/topics', page));
  });

  const rules = groupRules(config.kafka.topicPrefix, config.kafka.group, config.groups);
  const groupsFragment = async (filter: string): Promise<SafeHtml> => {
    const ids = (await listGroupIds(admin)).filter((id) => matchesFilter(id, filter));
    const ordered = orderGroups(await describe(ids), rules);
    return groupsList(ordered, filter, (group, kind) => groupSection(group, true, kind));
  };

  app.get('/groups', async (request, reply) => {
    const filter = parseGroupsFilter(request.query);
    const refresh = `/groups/fragment${filter ? `?filter=${encodeURIComponent(filter)}` : ''}`;
    const page = html`<link rel="stylesheet" href="/assets/groups.css" />
      <p>
        Members, their partitions and the lag per partition, as
        <code>kafka-consumer-groups --describe</code> shows them; refreshed every 2 s. The five services’
        groups come first, then the console’s own, then every other group of the cluster (tools’ and tests’),
        folded.
      </p>
      <form method="get" action="/groups" class="row" role="search">
        <label>Group name contains <input id="group-filter" name="filter" value="${filter}" /></label
        ><button type="submit">Filter</button>
      </form>
      <div id="groups" data-refresh-url="${refresh}" data-refresh-ms="2000">
        ${await groupsFragment(filter)}
      </div>
      <script src="/assets/groups-filter.js" defer></script>`;
    return sendHtml(reply, layout('Consumer groups', access.pageContext(request, reply), '/groups', page));
  });

  app.get('/groups/fragment', async (request, reply) =>
    sendHtml(reply, await groupsFragment(parseGroupsFilter(request.query))),
  );

  // The confirmation step: the group as it is now, and what the reset will do.
  app.get<{ Params: { groupId: string } }>('/groups/:groupId/reset', async (request, reply) => {
    const { groupId } = request.params;
    const context = access.pageContext(request, reply);
    const [group] = await describe([groupId]);
    const page = html`<p>
        Resetting moves the committed offset of every partition this group has committed on to the partition's
        low watermark: its consumers read the whole retained log again (the analytics replay). Kafka allows it
        only while the group has no members: stop them first (<code>kill</code> without <code>-9</code>; the
        stack does not restart a clean stop).
      </p>
      <p>
        A consumer's inbox drops every event it has already applied, so a replay rebuilds state only where
        that state was emptied first: for analytics-service, its tables and inbox, as the README's “Rebuilding
        analytics from the log” shows. A new consumer group that starts from the earliest offset needs no
        reset: it reads the retained log on its own.
      </p>
      <p data-inbox-protects>
        How far back the inbox protects: the services keep inbox rows for ${INBOX_PROTECTS} by default
        (INBOX_RETENTION_MS), as long as the saga topics can hold a record: retention.ms
        ${duration(EVENT_TOPIC_RETENTION_MS)} + segment.ms ${duration(EVENT_TOPIC_SEGMENT_MS)} + the broker's
        5-minute retention check. So every record the reset rereads is still in the inbox and is skipped,
        unless a service runs with a shorter INBOX_RETENTION_MS or its topics were created before segment.ms
        was set.
      </p>
      ${group ? groupSection(group, false) : html`<p>Unknown group.</p>`}
      <form method="post" action="/groups/${encodeURIComponent(groupId)}/reset">
        ${csrfField(context)}
        <label
          ><input type="checkbox" name="confirm" value="yes" required /> I understand that
          <code>${groupId}</code> will re-read its topics from the earliest offset</label
        >
        ${actionButton(context, 'Reset offsets to earliest')}
      </form>`;
    return sendHtml(reply, layout(`Reset ${groupId}`, context, '/groups', page));
  });

  registerAction(app, access, 'reset-offsets', '/groups/:groupId/reset', async (request) => {
    const { groupId } = request.params as { groupId: string };
    if ((request.body as { confirm?: string } | undefined)?.confirm !== 'yes') {
      throw Object.assign(new Error('confirm: tick the confirmation box to reset the offsets'), {
        statusCode: 400,
      });
    }
    const [before] = await describe([groupId]);
    if (before === undefined)
      throw Object.assign(new Error(`unknown consumer group ${groupId}`), { statusCode: 404 });
    try {
      const { topics } = await resetGroupToEarliest(admin, groupId);
      const [after] = await describe([groupId]);
      const content = html`<p role="status">
          Reset <code>${groupId}</code> to the earliest offsets of ${topics.join(', ') || 'no topic'}.
        </p>
        <h2>Before</h2>
        ${groupSection(before, false)}
        <h2>After</h2>
        ${after ? groupSection(after, false) : ''}`;
      return {
        changed: { groupId, topics, lagBefore: before.totalLag, lagAfter: after?.totalLag },
        page: { title: `Reset ${groupId}`, current: '/groups', content },
        json: { groupId, topics, before, after },
      };
    } catch (error) {
      if (error instanceof GroupNotEmptyError) throw Object.assign(error, { statusCode: 409 });
      throw error;
    }
  });
}
