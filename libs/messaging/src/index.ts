export * from './kafka/kafka-options';
export * from './kafka/kafka.tokens';
export * from './kafka/kafka.module';
export * from './health/kafka.health';
export * from './topics/provision-topics';
export * from './database/sql-client';
export * from './envelope/event-envelope';
export * from './outbox/outbox-writer';
