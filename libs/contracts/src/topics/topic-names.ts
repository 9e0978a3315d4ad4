/**
 * Every Kafka topic of the pipeline, named once. These names are a wire contract:
 * clients and tests outside this repository rely on them.
 */
export const Topics = {
  orders: 'orders',
  payments: 'payments',
  inventory: 'inventory',
  inventoryStock: 'inventory.stock',
  ordersCount: 'orders-count',
} as const;

export type SagaTopic = (typeof Topics)[keyof typeof Topics];

/** The services of the pipeline; each owns one dead-letter topic. */
export const ServiceNames = ['order', 'payment', 'inventory', 'email', 'analytics'] as const;
export type ServiceName = (typeof ServiceNames)[number];

export const deadLetterTopic = (service: ServiceName): string => `${service}.dead-letter`;
