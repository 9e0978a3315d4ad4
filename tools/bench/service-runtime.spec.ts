import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRuntimeEnv, serviceRuntimeEnv, ServiceRuntimeFile } from './service-runtime';

const root = resolve(__dirname, '../..');

describe('the services’ memory levers', () => {
  const defined = parseRuntimeEnv(readFileSync(resolve(root, ServiceRuntimeFile), 'utf8'));

  it('cap the old space and the semi-space, and the malloc arenas', () => {
    expect(defined.NODE_OPTIONS).toMatch(/--max-old-space-size=\d+/);
    expect(defined.NODE_OPTIONS).toMatch(/--max-semi-space-size=\d+/);
    expect(defined.MALLOC_ARENA_MAX).toBe('2');
  });

  it('are the same in the Dockerfile’s runtime stage', () => {
    const dockerfile = readFileSync(resolve(root, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.indexOf(' AS runtime'));
    expect(runtime).toContain(`NODE_OPTIONS="${defined.NODE_OPTIONS}"`);
    expect(runtime).toContain(`MALLOC_ARENA_MAX=${defined.MALLOC_ARENA_MAX}`);
  });

  it('let a caller add Node flags after ours and replace the arena count', () => {
    expect(serviceRuntimeEnv(root, {})).toEqual(defined);
    const env = serviceRuntimeEnv(root, { NODE_OPTIONS: '--inspect', MALLOC_ARENA_MAX: '4' });
    expect(env.NODE_OPTIONS).toBe(`${defined.NODE_OPTIONS} --inspect`);
    expect(env.MALLOC_ARENA_MAX).toBe('4');
  });
});

describe('parseRuntimeEnv', () => {
  it('keeps spaces in values and skips comments', () => {
    expect(parseRuntimeEnv('# c\n\nA=x y=z\nB=2\n')).toEqual({ A: 'x y=z', B: '2' });
    expect(() => parseRuntimeEnv('oops')).toThrow(/not KEY=value/);
  });
});
