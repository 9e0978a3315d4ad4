/** The service's KafkaEventServer (Nest transport strategy), shared by runService and health. */
export const KAFKA_EVENT_SERVER = Symbol('KAFKA_EVENT_SERVER');
