import { setTimeout as delay } from 'node:timers/promises';
import type { Kafka } from 'kafkajs';
import type {
  Evidence,
  Experiment,
  ExperimentContext,
  ExperimentStep,
  ExperimentVerdict,
} from './experiment';
import {
  labPrefix,
  listLabResources,
  removeLabResources,
  type LabResourceNames,
} from './support/lab-resources';

export interface RunExperimentOptions {
  readonly kafka: Kafka;
  readonly brokers: readonly string[];
  /** Stops the run (the experiment still cleans up). */
  readonly signal?: AbortSignal;
  /** Called with each step as it happens. */
  readonly onStep?: (step: ExperimentStep) => void;
  /** The run's name prefix; by default a fresh `lab.<id>.<random>.` (see labPrefix). */
  readonly namePrefix?: string;
  /** How long topic deletions may take to show in the metadata before a name counts as left over. */
  readonly leftoverGraceMs?: number;
}

export interface ExperimentRun {
  readonly experimentId: string;
  readonly namePrefix: string;
  readonly startedAt: Date;
  readonly durationMs: number;
  /** True when the signal stopped the run. */
  readonly stopped: boolean;
  readonly steps: readonly ExperimentStep[];
  readonly verdict: ExperimentVerdict;
}

const errorEvidence = (error: unknown): Evidence => ({
  kind: 'log',
  caption: 'Error',
  lines:
    error instanceof Error
      ? (error.stack ?? `${error.name}: ${error.message}`).split('\n').slice(0, 12)
      : [String(error)],
});

/**
 * Runs one experiment on names of its own (`lab.<id>.<random>.`), timestamps its steps, turns a
 * throw into a failed verdict, and then checks that nothing with the run's prefix is left: a
 * leftover fails the verdict (and is removed, so that one bad run does not litter the broker).
 */
export async function runExperiment(
  experiment: Experiment,
  options: RunExperimentOptions,
): Promise<ExperimentRun> {
  const signal = options.signal ?? new AbortController().signal;
  const namePrefix = options.namePrefix ?? labPrefix(experiment.id);
  if (!namePrefix.startsWith('lab.')) throw new Error(`namePrefix must start with "lab.": ${namePrefix}`);
  const startedAt = new Date();
  const started = performance.now();
  const steps: ExperimentStep[] = [];
  const record = (text: string, evidence?: Evidence) => {
    const step: ExperimentStep = {
      atMs: Math.round(performance.now() - started),
      text,
      ...(evidence === undefined ? {} : { evidence }),
    };
    steps.push(step);
    try {
      options.onStep?.(step);
    } catch {
      // A failing listener (a closed page) must not fail the experiment.
    }
  };
  const context: ExperimentContext = {
    kafka: options.kafka,
    brokers: options.brokers,
    namePrefix,
    signal,
    step: record,
  };

  let verdict: ExperimentVerdict;
  try {
    verdict = await experiment.run(context);
  } catch (error) {
    verdict = signal.aborted
      ? { passed: false, summary: 'Stopped before the criterion was decided.', evidence: [] }
      : {
          passed: false,
          summary: `The experiment failed: ${error instanceof Error ? error.message : String(error)}`,
          evidence: [errorEvidence(error)],
        };
  }
  verdict = await verifyCleanup(options, namePrefix, verdict, record);
  return {
    experimentId: experiment.id,
    namePrefix,
    startedAt,
    durationMs: Math.round(performance.now() - started),
    stopped: signal.aborted,
    steps,
    verdict,
  };
}

const isEmpty = (found: LabResourceNames) => found.topics.length === 0 && found.groups.length === 0;

async function verifyCleanup(
  options: RunExperimentOptions,
  prefix: string,
  verdict: ExperimentVerdict,
  record: (text: string, evidence?: Evidence) => void,
): Promise<ExperimentVerdict> {
  const admin = options.kafka.admin();
  try {
    await admin.connect();
    // A deleted topic can linger in the broker's metadata for a moment: give it the grace period.
    const deadline = Date.now() + (options.leftoverGraceMs ?? 5_000);
    let found = await listLabResources(admin, prefix);
    while (!isEmpty(found) && Date.now() < deadline) {
      await delay(250);
      found = await listLabResources(admin, prefix);
    }
    if (isEmpty(found)) {
      record(`Cleanup verified: no topic or group named ${prefix}* is left.`);
      return verdict;
    }
    const leftover: Evidence = {
      kind: 'table',
      caption: 'Left behind by the run (removed by the runner)',
      columns: ['Kind', 'Name'],
      rows: [...found.topics.map((name) => ['topic', name]), ...found.groups.map((name) => ['group', name])],
    };
    record(
      `Cleanup failed: ${found.topics.length} topic(s) and ${found.groups.length} group(s) left.`,
      leftover,
    );
    await removeLabResources(admin, prefix).catch(() => undefined);
    return {
      passed: false,
      summary: `${verdict.summary} Cleanup failed: the run left ${[...found.topics, ...found.groups].join(', ')}.`,
      evidence: [...verdict.evidence, leftover],
    };
  } catch (error) {
    return {
      passed: false,
      summary: `${verdict.summary} Cleanup could not be verified: ${error instanceof Error ? error.message : String(error)}`,
      evidence: [...verdict.evidence, errorEvidence(error)],
    };
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
