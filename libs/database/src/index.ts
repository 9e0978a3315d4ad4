export * from './sql';
export * from './sql-client';
