export * from './logging/service-logger';
