// The events a generated service produces: one `.event.ts` each, declared in the contracts.
import type { Tree } from '@nx/devkit';
import type { ProducedEvent, ServicePlan } from './plan.js';
import { TOPIC_NAMES } from './plan.js';
import {
  addArrayElement,
  addObjectProperty,
  addStatementAfterLast,
  isExportFrom,
  isImport,
} from './source-edits.js';
import { EVENTS_DIR } from './workspace-contracts.js';

const eventFile = (plan: ServicePlan, event: ProducedEvent): string => `import { z } from 'zod';
import { Topics } from '../topics/topic-names';
import { defineEvent } from './event-descriptor';
import { OrderIdSchema, TimestampSchema } from './fields';

// Version 1 as generated: evolve it as docs/contracts.md says (an optional field is compatible).
export const ${event.pascal}PayloadSchema = z.strictObject({
  orderId: OrderIdSchema,
  ${event.timeField}: TimestampSchema,
});
export type ${event.pascal}Payload = z.infer<typeof ${event.pascal}PayloadSchema>;

export const ${event.pascal}Event = defineEvent({
  type: '${event.type}',
  version: 1,
  topic: Topics.${event.topicKey},
  producer: '${plan.name}',
  key: 'order id',
  keySchema: OrderIdSchema,
  description: '${event.type} (${plan.app}): describe what happened and who acts on it.',
  schema: ${event.pascal}PayloadSchema,
});
`;

const edit = (tree: Tree, path: string, change: (text: string) => string): void => {
  tree.write(path, change(tree.read(path, 'utf-8') ?? ''));
};

export function addContracts(tree: Tree, plan: ServicePlan): void {
  edit(tree, TOPIC_NAMES, (text) => {
    let next = addArrayElement(TOPIC_NAMES, text, 'ServiceNames', `'${plan.name}'`);
    for (const event of plan.produced.filter(
      (e, i, all) => all.findIndex((o) => o.topic === e.topic) === i,
    )) {
      next = addObjectProperty(TOPIC_NAMES, next, 'Topics', event.topicKey, `'${event.topic}'`);
    }
    return next;
  });
  const catalogue = 'libs/contracts/src/topics/topic-catalogue.ts';
  edit(tree, catalogue, (text) =>
    plan.produced
      .filter((e, i, all) => all.findIndex((o) => o.topic === e.topic) === i)
      .reduce(
        (next, event) =>
          addArrayElement(
            catalogue,
            next,
            'TopicCatalogue',
            `{
    name: Topics.${event.topicKey},
    key: 'order id',
    cleanupPolicy: 'delete',
    retentionMs: SEVEN_DAYS_MS,
    description: '${plan.pascal} events produced by ${plan.app}.',
  }`,
            (element) => element.getText().startsWith('...'),
          ),
        text,
      ),
  );
  const eventCatalogue = `${EVENTS_DIR}/event-catalogue.ts`;
  for (const event of plan.produced) {
    tree.write(`${EVENTS_DIR}/${event.file}.event.ts`, eventFile(plan, event));
    edit(tree, 'libs/contracts/src/index.ts', (text) =>
      addStatementAfterLast(
        'index.ts',
        text,
        `export * from './events/${event.file}.event';`,
        (statement) => isExportFrom(statement) && statement.getText().endsWith(`.event';`),
      ),
    );
    edit(tree, eventCatalogue, (text) => {
      const imported = addStatementAfterLast(
        eventCatalogue,
        text,
        `import { ${event.pascal}Event } from './${event.file}.event';`,
        isImport,
      );
      return addObjectProperty(
        eventCatalogue,
        imported,
        'EventCatalogue',
        `[${event.pascal}Event.type]`,
        `${event.pascal}Event`,
      );
    });
  }
  // The contracts' own test holds a valid payload of every event type.
  const spec = `${EVENTS_DIR}/events.spec.ts`;
  if (tree.exists(spec)) {
    edit(tree, spec, (text) =>
      plan.produced.reduce(
        (next, event) =>
          addObjectProperty(spec, next, 'valid', `'${event.type}'`, `{ orderId, ${event.timeField}: at }`),
        text,
      ),
    );
  }
  const consumers = `${EVENTS_DIR}/event-consumers.ts`;
  const subscriptions = plan.consumedTopicKeys.map((topicKey) => {
    const types = plan.consumed.filter((h) => h.event.topicKey === topicKey).map((h) => `'${h.event.type}'`);
    return `{ topic: Topics.${topicKey}, types: [${types.join(', ')}] }`;
  });
  edit(tree, consumers, (text) =>
    addObjectProperty(consumers, text, 'EventConsumers', plan.name, `[${subscriptions.join(', ')}]`),
  );
}
