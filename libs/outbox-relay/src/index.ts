export * from './outbox-relay';
export * from './outbox-relay.options';
export * from './outbox-relay.service';
export { queryBacklog } from './outbox-table';
