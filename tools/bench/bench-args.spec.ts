import { describe, expect, it } from 'vitest';
import { parseBenchArgs, type BenchConfig } from './bench-args';
import { FullRamp, QuickRamp } from './rate-steps';

const parse = (argv: string[]): BenchConfig => {
  const config = parseBenchArgs(argv);
  if (config === 'help') throw new Error('unexpected help');
  return config;
};

describe('parseBenchArgs', () => {
  it('steps through the full ramp, confirms a failed step and refines between the last two by default', () => {
    const config = parse([]);
    expect(config.steps).toEqual(FullRamp);
    expect(config.refine).toBe(true);
    expect(config.confirm).toBe(true);
  });

  it('takes the shorter ramp with --quick, without confirming or refining', () => {
    const config = parse(['--quick']);
    expect(config.steps).toEqual(QuickRamp);
    expect(config.refine).toBe(false);
    expect(config.confirm).toBe(false);
    expect(config.stepSeconds).toBeLessThan(parse([]).stepSeconds);
  });

  it('takes the steps given', () => {
    expect(parse(['--steps', '5,50,500']).steps).toEqual([5, 50, 500]);
    expect(() => parse(['--steps', '5,x'])).toThrow(/not a positive number/);
  });

  it('warms up in windows until the broker settles, bounded in time', () => {
    const config = parse([]);
    expect(config.warmup.tolerance).toBeGreaterThan(0);
    expect(config.warmup.maxSeconds).toBeGreaterThan(config.warmup.windowSeconds);
    expect(parse(['--warmup-max-seconds', '0']).warmup.maxSeconds).toBe(0);
    expect(() => parse(['--warmup-max-seconds', '-1'])).toThrow(/seconds/);
  });

  it('runs the console beside the pipeline unless --skip console', () => {
    expect(parse([]).skip.has('console')).toBe(false);
    expect(parse(['--skip', 'console,pgbench']).skip).toEqual(new Set(['console', 'pgbench']));
    expect(() => parse(['--skip', 'browser'])).toThrow(/unknown part "browser"/);
  });
});
