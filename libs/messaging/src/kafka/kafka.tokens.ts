export const KAFKA_CLIENT = Symbol('KAFKA_CLIENT');
export const KAFKA_ADMIN = Symbol('KAFKA_ADMIN');
export const KAFKA_MODULE_OPTIONS = Symbol('KAFKA_MODULE_OPTIONS');
/** The service's KafkaEventServer (Nest transport strategy), shared by runService and health. */
export const KAFKA_EVENT_SERVER = Symbol('KAFKA_EVENT_SERVER');
