/**
 * Where a service's CPU went, from a V8 .cpuprofile (BENCH_CPU_PROFILE=1 npm run bench writes one
 * per service): self time grouped by package or source folder, and the hottest functions.
 * Usage: node dist/tools/bench/profile-summary.js <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly children?: readonly number[];
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** node_modules/<package> (scoped too), a source folder under dist/, or a V8 pseudo-frame. */
export function categoryOf(url: string, functionName: string): string {
  if (url === '') return `(${functionName || 'native'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url.split('/')[0]!;
  const dist = /dist\/((?:apps|libs|tools)\/[^/]+(?:\/src\/[^/]+)?)/.exec(url);
  return dist ? dist[1]! : url;
}

const isOurs = (url: string): boolean => /dist\/(apps|libs)\//.test(url) && !url.includes('/generated/');

export function summarise(profile: CpuProfile): {
  totalMs: number;
  idleMs: number;
  byCategory: [string, number][];
  byFunction: [string, number][];
  byOwnCaller: [string, number][];
} {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  // The innermost frame of our own code (apps/, libs/) above a sample: who asked for the work.
  const ownCaller = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = nodes.get(at)?.callFrame;
      if (frame && isOurs(frame.url))
        return `${frame.functionName || '(anonymous)'} ${categoryOf(frame.url, frame.functionName)}`;
    }
    return '(no app frame: framework, driver, event loop)';
  };
  const byOwnCaller = new Map<string, number>();
  let idle = 0;
  const byCategory = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const frame = nodes.get(id)?.callFrame;
    if (!frame) return;
    total += ms;
    if (frame.functionName === '(idle)') {
      idle += ms;
      return;
    }
    const caller = ownCaller(id);
    byOwnCaller.set(caller, (byOwnCaller.get(caller) ?? 0) + ms);
    const category = categoryOf(frame.url, frame.functionName);
    byCategory.set(category, (byCategory.get(category) ?? 0) + ms);
    const fn = `${frame.functionName || '(anonymous)'} ${category}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
  });
  const sorted = (m: Map<string, number>): [string, number][] => [...m].sort(([, a], [, b]) => b - a);
  return {
    totalMs: total,
    idleMs: idle,
    byCategory: sorted(byCategory),
    byFunction: sorted(byFunction),
    byOwnCaller: sorted(byOwnCaller),
  };
}

if (require.main === module) {
  const [file, top = '25'] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: profile-summary <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  const { totalMs, idleMs, byCategory, byFunction, byOwnCaller } = summarise(
    JSON.parse(readFileSync(file, 'utf8')) as CpuProfile,
  );
  const busy = totalMs - idleMs;
  const line = ([name, ms]: [string, number]): string =>
    `${ms.toFixed(0).padStart(8)} ms ${((ms / busy) * 100).toFixed(1).padStart(5)} %  ${name}`;
  process.stdout.write(
    [
      `${file}: ${totalMs.toFixed(0)} ms sampled, ${busy.toFixed(0)} ms not idle`,
      'self time by package / source folder (% of non-idle):',
      ...byCategory.slice(0, Number(top)).map(line),
      'hottest functions (self time):',
      ...byFunction.slice(0, Number(top)).map(line),
      'inclusive time by the innermost frame of our own code (apps/, libs/) on the stack:',
      ...byOwnCaller.slice(0, Number(top)).map(line),
      '',
    ].join('\n'),
  );
}
