// The generator's options, checked against the workspace and turned into every name it writes.
import type { Tree } from '@nx/devkit';
import {
  EVENT_TYPE,
  SERVICE_NAME,
  camel,
  defaultUseCase,
  eventNames,
  kebab,
  pascal,
  topicOfNoun,
} from './names.js';
import type { EventNames } from './names.js';
import { objectNumbers } from './source-edits.js';
import { declaredEvents, declaredTopics, type DeclaredEvent } from './workspace-contracts.js';

export interface ServiceGeneratorSchema {
  readonly name: string;
  /** Event types it consumes, comma-separated or repeated: `order.confirmed`. */
  readonly consumes: string | readonly string[];
  /** New event types it produces: `shipment.scheduled`. */
  readonly produces?: string | readonly string[];
  readonly port?: number;
  /** The use-case folder; default from the first produced event (`schedule-shipment`). */
  readonly useCase?: string;
}

export interface ProducedEvent extends EventNames {
  /** The `Topics` key and the topic name. */
  readonly topicKey: string;
  readonly topic: string;
  readonly newTopic: boolean;
  /** `scheduledAt`: the starter payload's timestamp field. */
  readonly timeField: string;
}

export interface ConsumedHandler {
  readonly event: DeclaredEvent;
  /** `ScheduleShipmentWhenOrderConfirmed` */
  readonly className: string;
  /** `schedule-shipment-when-order-confirmed` */
  readonly file: string;
}

export interface ServicePlan {
  readonly name: string;
  /** `shipping-service` */
  readonly app: string;
  readonly pascal: string;
  readonly port: number;
  readonly useCase: string;
  readonly useCasePascal: string;
  readonly consumed: readonly ConsumedHandler[];
  readonly produced: readonly ProducedEvent[];
  /** Topics keys it consumes, deduplicated. */
  readonly consumedTopicKeys: readonly string[];
}

export const STACK_PLAN = 'tools/stack/stack-plan.ts';
export const TOPIC_NAMES = 'libs/contracts/src/topics/topic-names.ts';
const CONSOLE_PORT = /export const ConsolePort = (\d+);/;

const listOf = (value: string | readonly string[] | undefined): string[] =>
  [value ?? []]
    .flat()
    .flatMap((item) => item.split(','))
    .map((item) => item.trim())
    .filter(Boolean);

export function planService(tree: Tree, options: ServiceGeneratorSchema): ServicePlan {
  const name = options.name.trim();
  if (!SERVICE_NAME.test(name)) {
    throw new Error(`service name "${name}": lower-case letters and digits, e.g. shipping`);
  }
  if (tree.exists(`apps/${name}-service`) || tree.exists(`prisma/${name}`)) {
    throw new Error(`apps/${name}-service or prisma/${name} exists already`);
  }
  const consumes = listOf(options.consumes);
  const produces = listOf(options.produces);
  if (consumes.length === 0) throw new Error('--consumes: at least one event type, e.g. order.confirmed');
  const declared = declaredEvents(tree);
  const consumedEvents = consumes.map((type) => {
    const event = declared.find((candidate) => candidate.type === type);
    if (!event) {
      throw new Error(
        `--consumes ${type}: not declared in libs/contracts (${declared.map((e) => e.type).join(', ')})`,
      );
    }
    return event;
  });
  const topics = declaredTopics(tree.read(TOPIC_NAMES, 'utf-8') ?? '');
  const produced = produces.map((type): ProducedEvent => {
    if (!EVENT_TYPE.test(type))
      throw new Error(`--produces ${type}: noun.past-tense-verb, e.g. shipment.scheduled`);
    if (declared.some((event) => event.type === type))
      throw new Error(`--produces ${type}: already declared`);
    const names = eventNames(type);
    const topic = topicOfNoun(names.noun);
    const topicKey = camel(topic);
    const existing = Object.entries(topics).find(([key, value]) => key === topicKey || value === topic);
    if (existing)
      throw new Error(`--produces ${type}: topic "${topic}" exists and belongs to another service`);
    return { ...names, topic, topicKey, newTopic: true, timeField: `${camel(names.verb)}At` };
  });
  const useCase = kebab(options.useCase ?? defaultUseCase(consumes, produces));
  const ports = objectNumbers(STACK_PLAN, tree.read(STACK_PLAN, 'utf-8') ?? '', 'ServicePorts');
  const taken = new Set([
    ...Object.values(ports),
    Number(CONSOLE_PORT.exec(tree.read(STACK_PLAN, 'utf-8') ?? '')?.[1]),
  ]);
  let port = options.port ?? Math.max(...Object.values(ports)) + 1;
  while (options.port === undefined && taken.has(port)) port += 1;
  if (taken.has(port)) throw new Error(`--port ${port}: taken`);
  const useCasePascal = pascal(useCase);
  return {
    name,
    app: `${name}-service`,
    pascal: pascal(name),
    port,
    useCase,
    useCasePascal,
    consumed: consumedEvents.map((event) => ({
      event,
      className: `${useCasePascal}When${pascal(event.type)}`,
      file: `${useCase}-when-${kebab(event.type)}`,
    })),
    produced,
    consumedTopicKeys: [...new Set(consumedEvents.map((event) => event.topicKey))],
  };
}
