import type { Experiment, ExperimentRun, RunExperimentOptions } from '@pipeline/experiments';
import type { Kafka } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { ExperimentRuns, RunRefusedError } from './experiment-runs';

const experiment = (id: string, available = true): Experiment => ({
  id,
  title: id,
  description: '',
  criterion: '',
  availability: () =>
    Promise.resolve(
      available ? { available: true } : { available: false, reason: 'no cluster', howTo: 'start it' },
    ),
  run: () => Promise.reject(new Error('not called: the runner is faked')),
});

/** A runner that steps once, then waits for the signal (or `release`), as a real run would. */
function fakeRunner() {
  let release: () => void = () => undefined;
  const runner = (subject: Experiment, options: RunExperimentOptions): Promise<ExperimentRun> =>
    new Promise((resolve) => {
      options.onStep?.({ atMs: 1, text: 'step one' });
      const finish = () =>
        resolve({
          experimentId: subject.id,
          namePrefix: `lab.${subject.id}.x.`,
          startedAt: new Date(),
          durationMs: 2,
          stopped: options.signal?.aborted ?? false,
          steps: [{ atMs: 1, text: 'step one' }],
          verdict: { passed: !options.signal?.aborted, summary: 'done', evidence: [] },
        });
      release = finish;
      options.signal?.addEventListener('abort', finish);
    });
  return { runner, release: () => release() };
}

// The broker is never touched: the runner is fake.
const broker = { kafka: {} as Kafka, brokers: ['127.0.0.1:9092'] };

describe('ExperimentRuns', () => {
  it('runs one at a time: a second start is refused with 409 while the first runs', async () => {
    const fake = fakeRunner();
    const runs = new ExperimentRuns([experiment('a'), experiment('b')], broker, fake.runner);
    const notified: string[] = [];
    runs.subscribe((id) => notified.push(id));
    await runs.start('a');
    expect(runs.running()).toMatchObject({ experimentId: 'a', steps: [{ text: 'step one' }] });
    await expect(runs.start('b')).rejects.toMatchObject({ statusCode: 409 });
    await expect(runs.start('a')).rejects.toBeInstanceOf(RunRefusedError);
    fake.release();
    await runs.close();
    expect(runs.running()).toBeUndefined();
    expect(runs.lastResult('a')?.verdict.passed).toBe(true);
    expect(notified.length).toBeGreaterThanOrEqual(3);
  });

  it('a second request arriving during the availability check is refused too', async () => {
    const fake = fakeRunner();
    const runs = new ExperimentRuns([experiment('a'), experiment('b')], broker, fake.runner);
    const [first, second] = await Promise.allSettled([runs.start('a'), runs.start('b')]);
    expect(first.status).toBe('fulfilled');
    expect(second).toMatchObject({ status: 'rejected', reason: { statusCode: 409 } });
    await runs.close();
  });

  it('stop aborts the run; its result stays as the last one; close awaits the end', async () => {
    const fake = fakeRunner();
    const runs = new ExperimentRuns([experiment('a')], broker, fake.runner);
    await runs.start('a');
    expect(runs.stop()?.experimentId).toBe('a');
    await runs.close();
    expect(runs.lastResult('a')).toMatchObject({ stopped: true, verdict: { passed: false } });
    expect(runs.stop()).toBeUndefined();
    await expect(runs.start('a')).rejects.toMatchObject({ statusCode: 503 });
  });

  it('refuses an unknown id (404) and an unavailable experiment (503, with its reason and how-to)', async () => {
    const runs = new ExperimentRuns([experiment('a', false)], broker, fakeRunner().runner);
    await expect(runs.start('nope')).rejects.toMatchObject({ statusCode: 404 });
    await expect(runs.start('a')).rejects.toMatchObject({
      statusCode: 503,
      message: '"a" cannot run here: no cluster start it',
    });
    expect(runs.running()).toBeUndefined();
  });
});
