import type { z } from 'zod';

/** Raised at start-up when the environment does not describe a runnable service. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';

  constructor(readonly problems: readonly string[]) {
    super(`invalid environment: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates the environment once, at start-up, into a typed config object.
 * Every problem names its variable, so one line tells the operator what to fix.
 */
export function loadConfig<Schema extends z.ZodType>(
  schema: Schema,
  env: Record<string, string | undefined> = process.env,
): z.output<Schema> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  // One problem per variable: the first one is what the operator has to fix.
  const problems = new Map<string, string>();
  for (const issue of result.error.issues) {
    const variable = issue.path.map(String).join('.') || '(environment)';
    if (problems.has(variable)) continue;
    const value = issue.path.length === 1 ? env[String(issue.path[0])] : undefined;
    problems.set(
      variable,
      value === undefined || value === '' ? `${variable} is required` : `${variable} ${issue.message}`,
    );
  }
  throw new ConfigError([...problems.values()]);
}
