export * from './logging/log-context';
export * from './logging/message-of';
export * from './logging/service-logger';
export * from './metrics/prometheus-text';
export * from './metrics/registry';
export * from './tracing/telemetry';
export * from './tracing/messaging-spans';
export * from './tracing/sampler';
