// What the generator reads from libs/contracts: the declared events, their topics and payloads.
import type { Tree } from '@nx/devkit';

export const EVENTS_DIR = 'libs/contracts/src/events';

export interface DeclaredEvent {
  readonly type: string;
  /** `OrderConfirmedEvent` */
  readonly descriptor: string;
  /** `OrderConfirmedPayload` */
  readonly payloadType: string;
  /** The `Topics` key, e.g. `orders`. */
  readonly topicKey: string;
  /** The topic's name, e.g. `orders`. */
  readonly topicName: string;
  /** Whether the payload has an `orderId` (the saga's record key). */
  readonly hasOrderId: boolean;
}

export function declaredEvents(tree: Tree): DeclaredEvent[] {
  const topics = declaredTopics(tree.read('libs/contracts/src/topics/topic-names.ts', 'utf-8') ?? '');
  return tree
    .children(EVENTS_DIR)
    .filter((file) => file.endsWith('.event.ts'))
    .flatMap((file) => {
      const text = tree.read(`${EVENTS_DIR}/${file}`, 'utf-8') ?? '';
      const descriptor = /export const (\w+Event) = defineEvent\(\{\s*type: '([^']+)'/.exec(text);
      const topic = /\btopic: Topics\.(\w+)/.exec(text);
      const payload = /export type (\w+Payload) = /.exec(text);
      if (!descriptor || !topic || !payload) return [];
      return [
        {
          type: descriptor[2]!,
          descriptor: descriptor[1]!,
          payloadType: payload[1]!,
          topicKey: topic[1]!,
          topicName: topics[topic[1]!] ?? topic[1]!,
          hasOrderId: /\borderId: /.test(text),
        },
      ];
    });
}

/** `Topics` of topic-names.ts: key → topic name. */
export function declaredTopics(text: string): Record<string, string> {
  const body = /export const Topics = \{([\s\S]*?)\} as const/.exec(text)?.[1] ?? '';
  return Object.fromEntries([...body.matchAll(/(\w+): '([^']+)'/g)].map((m) => [m[1]!, m[2]!]));
}
