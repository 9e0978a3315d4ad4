import type { EventContracts } from '../envelope/event-envelope';

/**
 * An optional prefix on every topic name at the Kafka edge (`test.x1.orders`), so that test runs
 * or environments can share one cluster. Code and contracts keep using the contract names.
 */
export function withTopicPrefix(contracts: EventContracts, prefix: string): EventContracts {
  if (prefix === '') return contracts;
  return {
    ...contracts,
    isDeclaredFor: (topic, type) => contracts.isDeclaredFor(withoutTopicPrefix(topic, prefix), type),
  };
}

/** The contract name of a topic as it is on Kafka (`test.x1.orders` → `orders`). */
export const withoutTopicPrefix = (topic: string, prefix: string): string =>
  prefix !== '' && topic.startsWith(prefix) ? topic.slice(prefix.length) : topic;
