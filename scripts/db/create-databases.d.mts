// Types for create-databases.mjs.
export declare const SERVICE_DATABASES: readonly string[];
export declare function createDatabases(
  names?: readonly string[],
  options?: { env?: NodeJS.ProcessEnv; maintenanceDb?: string },
): Promise<{ created: string[]; existing: string[] }>;
export declare function dropDatabase(
  name: string,
  options?: { env?: NodeJS.ProcessEnv; maintenanceDb?: string },
): Promise<void>;
