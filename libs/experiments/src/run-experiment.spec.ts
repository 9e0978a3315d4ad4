import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Topics } from '@pipeline/contracts';
import { createKafka, parseBrokerList } from '@pipeline/messaging';
import type { Experiment, ExperimentContext, ExperimentStep, ExperimentVerdict } from './experiment';
import { runExperiment } from './run-experiment';
import { pause } from './support/abortable';
import { LabResources, listLabResources } from './support/lab-resources';

// The runner against the real broker, with fake experiments: what it adds around any experiment.
const brokers = parseBrokerList(process.env.KAFKA_BROKERS ?? '127.0.0.1:9092');
const kafka = createKafka({ brokers, clientId: 'run-experiment-spec' });

const fake = (run: (context: ExperimentContext) => Promise<ExperimentVerdict>): Experiment => ({
  id: 'fake',
  title: 'Fake',
  description: 'A fake experiment.',
  criterion: 'Whatever it returns.',
  availability: () => Promise.resolve({ available: true }),
  run,
});
const passed: ExperimentVerdict = { passed: true, summary: 'It held.', evidence: [] };

describe('runExperiment', () => {
  let admin: Admin;
  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
  });
  afterAll(() => admin?.disconnect());

  it('names the run lab.<id>.<random>., timestamps and streams the steps, and verifies the cleanup', async () => {
    const streamed: ExperimentStep[] = [];
    const prefixes: string[] = [];
    const experiment = fake(async (context) => {
      prefixes.push(context.namePrefix);
      context.step('one');
      const lab = new LabResources(context);
      await lab.createTopics([{ name: 't' }]);
      await lab.cleanup();
      context.step('two', { kind: 'values', caption: 'c', entries: [['a', 'b']] });
      return passed;
    });
    const run = await runExperiment(experiment, { kafka, brokers, onStep: (step) => streamed.push(step) });
    expect(run.namePrefix).toMatch(/^lab\.fake\.[0-9a-f]{8}\.$/);
    expect(prefixes).toEqual([run.namePrefix]);
    expect(Object.values(Topics).some((topic) => topic.startsWith('lab.'))).toBe(false);
    expect(run.verdict).toEqual(passed);
    expect(run.steps.map((step) => step.text)).toEqual([
      'one',
      'two',
      `Cleanup verified: no topic or group named ${run.namePrefix}* is left.`,
    ]);
    expect(streamed).toEqual(run.steps);
    const times = run.steps.map((step) => step.atMs);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(run.steps[1]?.evidence).toEqual({ kind: 'values', caption: 'c', entries: [['a', 'b']] });
    expect(run.stopped).toBe(false);
    expect(run.durationMs).toBeGreaterThanOrEqual(times.at(-1)!);
  });

  it('turns a throw into a failed verdict with the error as evidence', async () => {
    const run = await runExperiment(
      fake(() => Promise.reject(new Error('the broker said no'))),
      { kafka, brokers },
    );
    expect(run.verdict.passed).toBe(false);
    expect(run.verdict.summary).toBe('The experiment failed: the broker said no');
    expect(run.verdict.evidence[0]).toMatchObject({ kind: 'log', caption: 'Error' });
    expect(JSON.stringify(run.verdict.evidence)).toContain('the broker said no');
  });

  it('fails a run that leaves a topic behind, names it, and removes it', async () => {
    const run = await runExperiment(
      fake(async (context) => {
        await new LabResources(context).createTopics([{ name: 'forgotten' }]);
        return passed;
      }),
      { kafka, brokers, leftoverGraceMs: 500 },
    );
    expect(run.verdict.passed).toBe(false);
    expect(run.verdict.summary).toContain(`Cleanup failed: the run left ${run.namePrefix}forgotten`);
    expect(run.verdict.evidence.at(-1)).toMatchObject({
      kind: 'table',
      rows: [['topic', `${run.namePrefix}forgotten`]],
    });
    await expect(listLabResources(admin, run.namePrefix)).resolves.toEqual({ topics: [], groups: [] });
  });

  it('refuses a name prefix outside lab.', async () => {
    await expect(
      runExperiment(
        fake(() => Promise.resolve(passed)),
        { kafka, brokers, namePrefix: 'orders' },
      ),
    ).rejects.toThrow('namePrefix must start with "lab."');
  });

  it('stops at the signal: the verdict says so', async () => {
    const controller = new AbortController();
    const running = runExperiment(
      fake(async (context) => {
        context.step('waiting');
        await pause(60_000, context.signal);
        return passed;
      }),
      { kafka, brokers, signal: controller.signal, onStep: () => controller.abort() },
    );
    const run = await running;
    expect(run.stopped).toBe(true);
    expect(run.verdict).toEqual({
      passed: false,
      summary: 'Stopped before the criterion was decided.',
      evidence: [],
    });
  });
});
