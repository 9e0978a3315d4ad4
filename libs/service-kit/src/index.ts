export * from './config/load-config';
export * from './config/base-config.schema';
export * from './database/database.tokens';
export * from './database/database.module';
export * from './database/database.health';
export * from './bootstrap/service.tokens';
export * from './bootstrap/service-core.module';
export * from './bootstrap/run-service';
