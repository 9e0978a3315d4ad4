import { describe, expect, it } from 'vitest';
import { DefaultGroups, parseConfig, UsageError } from './args';

const config = (...argv: string[]) => {
  const result = parseConfig(argv, new Date('2026-11-30T10:00:00Z'));
  if (result === 'help') throw new Error('unexpected help');
  return result;
};

describe('parseConfig', () => {
  it('has defaults for everything', () => {
    const c = config();
    expect(c.model).toEqual({ kind: 'open', rate: 50, durationSeconds: 60 });
    expect(c.mix).toEqual({ confirmed: 90, declined: 5, 'out-of-stock': 5 });
    expect(c.baseUrl).toBe('http://127.0.0.1:3000');
    expect(c.drainSeconds).toBe(30);
    expect(c.groups).toEqual(DefaultGroups);
    expect(c.lagIntervalMs).toBe(5000);
    expect(c.traceRatio).toBe(0.01);
    expect(c.out).toBe('reports/loadgen-2026-11-30T10-00-00-000Z.json');
  });

  it('prefixes the default groups and reads the lag interval', () => {
    const c = config('--group-prefix', 'bench-1.', '--lag-interval', '0.5');
    expect(c.groups['bench-1.inventory-service']).toEqual(['payments']);
    expect(Object.keys(c.groups)).toHaveLength(5);
    expect(c.lagIntervalMs).toBe(500);
    expect(() => config('--group-prefix', 'x', '--groups', 'a=orders')).toThrow(UsageError);
  });

  it('reads the stepped and closed models', () => {
    expect(config('--steps', '100,200,400', '--step-seconds', '10').model).toEqual({
      kind: 'stepped',
      steps: [100, 200, 400],
      stepSeconds: 10,
    });
    expect(config('--closed', '8', '--duration', '20').model).toEqual({
      kind: 'closed',
      clients: 8,
      durationSeconds: 20,
    });
  });

  it('reads a mix and group overrides', () => {
    expect(config('--mix', 'confirmed=1,declined=1').mix).toEqual({
      confirmed: 1,
      declined: 1,
      'out-of-stock': 0,
    });
    expect(config('--groups', 'a=orders+payments,b=inventory').groups).toEqual({
      a: ['orders', 'payments'],
      b: ['inventory'],
    });
  });

  it('reads the trace ratio', () => {
    expect(config('--trace-ratio', '1').traceRatio).toBe(1);
    expect(config('--trace-ratio', '0').traceRatio).toBe(0);
    expect(config('--trace-ratio', '0.25').traceRatio).toBe(0.25);
  });

  it('returns help', () => {
    expect(parseConfig(['--help'])).toBe('help');
  });

  it.each([
    [['--rate', '0'], /--rate must be a number >= 0.001/],
    [['--rate', 'fast'], /--rate must be a number/],
    [['--rate', '10', '--closed', '2'], /choose one of --rate, --steps, --closed/],
    [['--closed', '1.5'], /--closed must be an integer/],
    [['--steps', '10,x'], /--steps must be a number/],
    [['--steps', '10', '--duration', '5'], /--duration does not apply to --steps/],
    [['--step-seconds', '5'], /--step-seconds needs --steps/],
    [['--mix', 'confirmed=90,lost=10'], /--mix: "lost=10"/],
    [['--mix', 'confirmed=0'], /all weights are 0/],
    [['--mix', 'declined=-1'], /bad weight/],
    [['--groups', 'nogroup'], /--groups/],
    [['--max-in-flight', '0'], /--max-in-flight/],
    [['--trace-ratio', '1.5'], /--trace-ratio must be within 0 and 1/],
    [['--trace-ratio=-0.1'], /--trace-ratio must be a number >= 0/],
    [['--unknown'], /Unknown option '--unknown'/],
    [['extra'], /Unexpected argument 'extra'/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseConfig(argv)).toThrow(UsageError);
    expect(() => parseConfig(argv)).toThrow(message);
  });
});
