export const KAFKA_CLIENT = Symbol('KAFKA_CLIENT');
export const KAFKA_ADMIN = Symbol('KAFKA_ADMIN');
export const KAFKA_MODULE_OPTIONS = Symbol('KAFKA_MODULE_OPTIONS');
