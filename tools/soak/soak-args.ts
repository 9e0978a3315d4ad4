import { parseArgs } from 'node:util';
import { parseBenchArgs } from '../bench/bench-args';
import { UsageError } from '../loadgen/args';

export { UsageError };

export interface SoakConfig {
  readonly minutes: number;
  /** Orders/s; undefined: half the sustainable rate the bench's ramp finds on the stack. */
  readonly rate: number | undefined;
  /** RSS is compared from here on: the first minutes fill caches, pools and the JIT. */
  readonly warmupMinutes: number;
  /** Width of the windows whose median RSS is compared (capped at a third of the time after warm-up). */
  readonly windowMinutes: number;
  readonly sampleSeconds: number;
  /** Records per group; undefined: the default bound for the rate (soak-verdict.ts). */
  readonly lagBound: number | undefined;
  /** Passed to the bench's argument parser for the ramp (tools/bench/bench-args.ts). */
  readonly rampArgs: readonly string[];
  readonly outDir: string;
  /** Parse the arguments and exit: scripts/soak.sh checks them before it starts a stack. */
  readonly checkOnly: boolean;
}

export const SOAK_USAGE = `Usage: npm run soak -- [--minutes 30] [--rate <orders/s>] [options]

Runs steady load at half the sustainable rate against the local stack (npm run stack; started when
it is not running), samples RSS per process, consumer lag per group, e2e p99 and the outbox backlog,
writes reports/soak-<time>/ (soak.html with the plots, soak.json with the samples, load.html and
load.json from the load engine) and exits 1 unless: 0 lost and 0 duplicated; each process's RSS
grew by less than 10 % after the warm-up; each group's lag stayed bounded. A soak is >= 30 minutes.

  --minutes <m>          minutes of load (default 30)
  --rate <r>             orders/s (default: half the sustainable rate, found first with the
                         bench's warm-up and ramp on this stack: see --steps)
  --warmup-minutes <m>   RSS growth is measured from here on (default 5, or a third of
                         --minutes when that is shorter)
  --window-minutes <m>   RSS compares the median of the window after the warm-up with the median
                         of the last window (default 2; at most a third of the time after warm-up)
  --sample-seconds <s>   one sample and one progress line every <s> seconds (default 10)
  --lag-bound <records>  the most lag a group may have in the last third (default: 10 seconds
                         of what the group's own topics receive, at least 100 records)
  --steps <list>, --step-seconds <s>, --warmup-max-seconds <s>, --quick
                         the ramp's, as npm run bench takes them (without --rate only)
  --out <dir>            report folder (default reports/soak-<time>)

Environment: KAFKA_BROKERS, KAFKA_TOPIC_PREFIX and PG* as for the stack; SOAK_STACK_ARGS are
given to the stack when npm run soak starts it (e.g. --no-console).`;

const OPTIONS = {
  minutes: { type: 'string' },
  rate: { type: 'string' },
  'warmup-minutes': { type: 'string' },
  'window-minutes': { type: 'string' },
  'sample-seconds': { type: 'string' },
  'lag-bound': { type: 'string' },
  steps: { type: 'string' },
  'step-seconds': { type: 'string' },
  'warmup-max-seconds': { type: 'string' },
  quick: { type: 'boolean' },
  out: { type: 'string' },
  'check-args': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const RampOptions = ['steps', 'step-seconds', 'warmup-max-seconds', 'quick'] as const;

function positive(option: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value <= 0)
    throw new UsageError(`--${option} must be a number > 0, got "${text}"`);
  return value;
}

export function parseSoakArgs(argv: readonly string[], now: Date = new Date()): SoakConfig | 'help' {
  let values;
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error instanceof Error ? error.message : String(error)).split('. ')[0]);
  }
  if (values.help) return 'help';
  const minutes = positive('minutes', values.minutes, 30);
  const warmupMinutes = positive('warmup-minutes', values['warmup-minutes'], Math.min(5, minutes / 3));
  if (warmupMinutes >= minutes)
    throw new UsageError(`--warmup-minutes (${warmupMinutes}) must be less than --minutes (${minutes})`);
  const rate = values.rate === undefined ? undefined : positive('rate', values.rate, 0);
  const rampArgs = RampOptions.flatMap((option) => {
    const value = values[option];
    if (value === undefined) return [];
    if (rate !== undefined) throw new UsageError(`--${option} is for the ramp, which --rate skips`);
    return typeof value === 'boolean' ? [`--${option}`] : [`--${option}`, value];
  });
  try {
    parseBenchArgs(rampArgs);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const lagBound = values['lag-bound'];
  return {
    minutes,
    rate,
    warmupMinutes,
    windowMinutes: positive('window-minutes', values['window-minutes'], 2),
    sampleSeconds: positive('sample-seconds', values['sample-seconds'], 10),
    lagBound: lagBound === undefined ? undefined : positive('lag-bound', lagBound, 0),
    rampArgs,
    outDir: values.out ?? `reports/soak-${now.toISOString().replace(/[:.]/g, '-')}`,
    checkOnly: values['check-args'] ?? false,
  };
}
