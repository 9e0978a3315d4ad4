// The pieces of a load test against the pipeline: which orders to place (the demo catalogue's
// outcome mix), how to place them, and how far a consumer group lags. Shared by the load
// generator and the bench (tools/) and by the fault suite (tests/faults).
export * from './lag-monitor';
export * from './order-client';
export * from './order-mix';
