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

/**
 * A service's consumer group when KAFKA_CONSUMER_GROUP does not name another: `payment-service`.
 * The bench and the load generator put their run's prefix in front (`<prefix>payment-service`).
 */
export const consumerGroupOf = (service: string): string => `${service}-service`;
