import { describe, expect, it } from 'vitest';
import { chooseRate, givenRate, NoSustainableRate, type TriedStep } from './rate-choice';
import { parseSoakArgs, UsageError } from './soak-args';

const step = (offered: number, sustainable: boolean, reasons: string[] = []): TriedStep => ({
  label: 'step',
  offered,
  verdict: { sustainable, reasons },
});

describe('chooseRate', () => {
  it('halves the highest sustainable rate and says which step stopped the ramp', () => {
    const choice = chooseRate(
      { sustainable: 300, steppedDown: [], floorReached: false },
      [
        { label: 'warm-up', offered: 20, verdict: { sustainable: true, reasons: [] } },
        step(200, true),
        step(400, false, ['e2e p99 2300 ms > 1000 ms']),
        step(300, true),
      ],
      2,
    );
    expect(choice.rate).toBe(150);
    expect(choice.sustainable).toBe(300);
    expect(choice.why).toMatch(/^half of 300 orders\/s, the highest rate the bench's ramp kept up with/);
    expect(choice.why).toContain('400 orders/s was not (e2e p99 2300 ms > 1000 ms)');
  });

  it('says so when even the ramp top held', () => {
    const choice = chooseRate({ sustainable: 25, steppedDown: [], floorReached: false }, [step(25, true)], 2);
    expect(choice.rate).toBe(13);
    expect(choice.why).toContain("every step up to 25 held: the ramp's top");
  });

  it('refuses to soak when nothing was sustainable, with the last reason', () => {
    const run = () =>
      chooseRate({ sustainable: 0, steppedDown: [2], floorReached: true }, [step(2, false, ['3 lost'])], 2);
    expect(run).toThrow(NoSustainableRate);
    expect(run).toThrow(/not even 2 orders\/s \(3 lost\): pass --rate/);
  });

  it('takes a given rate as it is', () => {
    expect(givenRate(40)).toEqual({ rate: 40, why: 'given with --rate' });
  });
});

describe('parseSoakArgs', () => {
  const parse = (...argv: string[]) => {
    const config = parseSoakArgs(argv, new Date('2026-12-02T10:00:00Z'));
    if (config === 'help') throw new Error('unexpected help');
    return config;
  };

  it('soaks 30 minutes, at a rate the ramp finds, judging RSS after 5 minutes', () => {
    expect(parse()).toEqual({
      minutes: 30,
      rate: undefined,
      warmupMinutes: 5,
      windowMinutes: 2,
      sampleSeconds: 10,
      lagBound: undefined,
      rampArgs: [],
      outDir: 'reports/soak-2026-12-02T10-00-00-000Z',
      checkOnly: false,
    });
  });

  it('shortens the default warm-up to a third of a short run', () => {
    expect(parse('--minutes', '3').warmupMinutes).toBe(1);
  });

  it('forwards the ramp options to the bench, and refuses them with --rate', () => {
    expect(parse('--steps', '5,10', '--quick').rampArgs).toEqual(['--steps', '5,10', '--quick']);
    expect(() => parse('--rate', '20', '--steps', '5,10')).toThrow(/--steps is for the ramp/);
    expect(() => parse('--steps', '5,x')).toThrow(UsageError);
  });

  it('refuses bad values with the option named', () => {
    expect(() => parse('--minutes', '0')).toThrow('--minutes must be a number > 0, got "0"');
    expect(() => parse('--rate', 'fast')).toThrow('--rate must be a number > 0');
    expect(() => parse('--minutes', '3', '--warmup-minutes', '3')).toThrow(/less than --minutes/);
    expect(() => parse('--bogus')).toThrow(UsageError);
  });
});
