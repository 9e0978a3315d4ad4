export * from './sql';
export * from './sql-client';
export * from './in-process-writers';
