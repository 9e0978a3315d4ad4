// Types for shared-schema.mjs.
export declare const SHARED_DIR: string;
export declare const SHARED_SCHEMA: string;
export declare const SHARED_INIT_SQL: string;
export declare const SHARED_MIGRATIONS_DIR: string;
export declare const SCHEMA_OWNERS: readonly string[];
export declare const COPY_HEADER: string;
export declare function renderSchemaCopy(shared: string): string;
export declare function schemaCopyPathOf(owner: string): string;
export declare function initMigrationOf(service: string): string | undefined;
export declare function sharedMigrations(): { name: string; file: string }[];
export declare function sharedMigrationOf(service: string, name: string): string | undefined;
export declare function driftedCopies(): {
  file: string;
  expected: string;
  actual: string | undefined;
  rewrite: boolean;
}[];
export declare function syncSharedSchema(options?: {
  check?: boolean;
  log?: (line: string) => void;
}): boolean;
