// Types for lib.mjs (so strict TypeScript, e.g. tests, can import it).
export type ServiceName = 'order' | 'payment' | 'inventory' | 'email' | 'analytics';

export interface PgFields {
  host: string;
  port: number;
  user: string;
  password?: string | undefined;
  database: string;
  ssl?: { rejectUnauthorized: boolean };
}

export interface MigrationFolder {
  name: string;
  file: string;
  script: string;
  /** sha256 (hex) of migration.sql: what Prisma stores in _prisma_migrations.checksum */
  checksum: string;
}

export declare const ROOT: string;
export declare const SERVICES: readonly ServiceName[];
export declare const PRISMA_MIGRATE_LOCK_KEY: number;
export declare function assertService(name: string): ServiceName;
export declare function databaseNameOf(service: ServiceName): string;
export declare function schemaPathOf(service: ServiceName): string;
export declare function schemaFilesOf(service: ServiceName): string[];
export declare function migrationsDirOf(service: ServiceName): string;
export declare function pgEnv(env?: NodeJS.ProcessEnv): Omit<PgFields, 'database'>;
export declare function buildUrl(fields: Omit<PgFields, 'ssl'>): string;
export declare function serviceUrl(service: ServiceName, env?: NodeJS.ProcessEnv): string;
export declare function parseUrl(url: string): PgFields;
export declare function redact(url: string): string;
export declare function ident(name: string): string;
export declare function sha256Hex(text: string | Uint8Array): string;
export declare function readMigrations(dir: string): {
  dir: string;
  migrations: MigrationFolder[];
  lockfile: string | null;
};
export declare function parseArgs(argv: string[]): {
  _: string[];
  [flag: string]: string | boolean | string[];
};
export declare function elapsed(t0: number): string;
export declare function isMain(importMetaUrl: string): boolean;
