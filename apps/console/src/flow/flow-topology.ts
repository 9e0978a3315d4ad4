import {
  EventConsumers,
  EventDescriptors,
  ServiceNames,
  type SagaTopic,
  type ServiceName,
} from '@pipeline/contracts';
import { FLOW_TOPICS } from './order-feed';

/** A service writing to a topic, or a topic read by a service's group. */
export interface FlowEdge {
  readonly kind: 'produces' | 'consumes';
  readonly service: ServiceName;
  readonly topic: SagaTopic;
}

const onFlow = (topic: SagaTopic) => (FLOW_TOPICS as readonly SagaTopic[]).includes(topic);

/**
 * The picture's edges, derived from the contracts (who produces each event type, who consumes
 * which topic), never drawn from a second hand-written list: a service added to the contracts
 * appears on the picture's edges.
 */
export const FLOW_EDGES: readonly FlowEdge[] = [
  ...[...new Set(EventDescriptors.filter((d) => onFlow(d.topic)).map((d) => `${d.producer} ${d.topic}`))].map(
    (pair): FlowEdge => {
      const [service, topic] = pair.split(' ') as [ServiceName, SagaTopic];
      return { kind: 'produces', service, topic };
    },
  ),
  ...ServiceNames.flatMap((service) =>
    [...new Set(EventConsumers[service].map((s) => s.topic))]
      .filter(onFlow)
      .map((topic): FlowEdge => ({ kind: 'consumes', service, topic })),
  ),
];

/** The saga topics each service's group reads (its lag is counted over these). */
export const consumedTopics = (service: ServiceName): readonly SagaTopic[] =>
  FLOW_EDGES.filter((e) => e.kind === 'consumes' && e.service === service).map((e) => e.topic);
