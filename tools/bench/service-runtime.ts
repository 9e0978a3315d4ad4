import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the services' memory levers are defined, once for the local stack, the bench and tests. */
export const ServiceRuntimeFile = 'scripts/lib/service-runtime.env';

/** `KEY=value` lines; `#` comments and blank lines skipped; the value runs to the end of the line. */
export function parseRuntimeEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const at = trimmed.indexOf('=');
    if (at <= 0) throw new Error(`${ServiceRuntimeFile}: not KEY=value: "${trimmed}"`);
    env[trimmed.slice(0, at)] = trimmed.slice(at + 1);
  }
  return env;
}

/**
 * NODE_OPTIONS and MALLOC_ARENA_MAX for a service process, on the local stack and in the bench:
 * the caller's own NODE_OPTIONS come after ours (a later V8 flag wins), its MALLOC_ARENA_MAX
 * replaces ours.
 */
export function serviceRuntimeEnv(
  repoRoot: string,
  inherited: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const defined = parseRuntimeEnv(readFileSync(join(repoRoot, ServiceRuntimeFile), 'utf8'));
  const nodeOptions = [defined.NODE_OPTIONS, inherited.NODE_OPTIONS].filter(
    (o) => o !== undefined && o !== '',
  );
  return {
    ...defined,
    ...(nodeOptions.length > 0 ? { NODE_OPTIONS: nodeOptions.join(' ') } : {}),
    ...(inherited.MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX: inherited.MALLOC_ARENA_MAX } : {}),
  };
}
