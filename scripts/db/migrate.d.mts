// Types for migrate.mjs.
import type { PgFields, ServiceName } from './lib.mjs';

export type Log = (line: string) => void;

interface Common {
  log?: Log;
  env?: NodeJS.ProcessEnv;
}

export interface DeployResult {
  service: ServiceName;
  database: string;
  /** names of the migrations applied by this run (empty: nothing was pending) */
  applied: string[];
  alreadyApplied?: number;
  ms: number;
}

export declare const MIGRATION_LOCK_TOML: string;
export declare const PRISMA_MIGRATIONS_DDL: string;

export declare class MigrateError extends Error {
  constructor(message: string, code?: string);
  code: string | undefined;
}

export declare function connectionFor(
  service: ServiceName,
  options?: { url?: string; env?: NodeJS.ProcessEnv; single?: boolean },
): PgFields;

export declare function deployService(
  service: ServiceName,
  options?: Common & { url?: string; single?: boolean },
): Promise<DeployResult>;
export declare function deployServiceWasm(
  service: ServiceName,
  options?: Common & { url?: string; single?: boolean },
): Promise<DeployResult>;
export declare function deploy(
  options?: Common & { services?: readonly ServiceName[]; url?: string; engine?: 'pg' | 'wasm' },
): Promise<DeployResult[]>;

export interface CheckResult {
  service: ServiceName;
  inSync: boolean;
  /** the SQL a new migration would need (empty when in sync) */
  script: string;
}
export declare function checkService(service: ServiceName, options?: Common): Promise<CheckResult>;
export declare function check(
  options?: Common & { services?: readonly ServiceName[] },
): Promise<CheckResult[]>;

export declare function createMigration(
  service: ServiceName,
  name: string,
  options?: Common & { draft?: boolean; url?: string },
): Promise<{ service: ServiceName; created: string | null; script?: string }>;

export interface MigrationHistoryDiagnostic {
  hasMigrationsTable: boolean;
  failedMigrationNames: string[];
  editedMigrationNames: string[];
  history: null | { diagnostic: string; [key: string]: unknown };
}
export declare function statusService(
  service: ServiceName,
  options?: Common & { url?: string; single?: boolean },
): Promise<{ service: ServiceName; upToDate: boolean; diagnostic: MigrationHistoryDiagnostic }>;
