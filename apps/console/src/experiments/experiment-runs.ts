import {
  labPrefix,
  runExperiment,
  type Availability,
  type Experiment,
  type ExperimentRun,
  type ExperimentStep,
  type RunExperimentOptions,
} from '@pipeline/experiments';
import type { Kafka } from 'kafkajs';

/** The run in progress: its steps so far, and how to stop it. */
export interface RunningExperiment {
  readonly experimentId: string;
  /** Every topic and group of the run starts with it. */
  readonly namePrefix: string;
  readonly startedAt: Date;
  readonly steps: readonly ExperimentStep[];
  readonly stopping: boolean;
}

/** What a page subscriber is told: this experiment's section changed. */
export type RunListener = (experimentId: string) => void;

/** An HTTP status with the reason: the page and the JSON answer both say it. */
export class RunRefusedError extends Error {
  constructor(
    readonly statusCode: 404 | 409 | 503,
    message: string,
  ) {
    super(message);
    this.name = 'RunRefusedError';
  }
}

type Runner = (experiment: Experiment, options: RunExperimentOptions) => Promise<ExperimentRun>;

const AVAILABILITY_TIMEOUT_MS = 5_000;

/**
 * One experiment at a time, its steps as they happen, and the last result of each: the state
 * behind the Experiments page. Nothing of it outlives close(): it aborts the run and awaits its
 * cleanup.
 */
export class ExperimentRuns {
  private current: (RunningExperiment & { controller: AbortController; done: Promise<void> }) | undefined;
  private readonly results = new Map<string, ExperimentRun>();
  private readonly listeners = new Set<RunListener>();
  private closed = false;

  constructor(
    readonly experiments: readonly Experiment[],
    private readonly broker: { readonly kafka: Kafka; readonly brokers: readonly string[] },
    private readonly runner: Runner = runExperiment,
  ) {}

  find(id: string): Experiment | undefined {
    return this.experiments.find((experiment) => experiment.id === id);
  }

  running(): RunningExperiment | undefined {
    return this.current;
  }

  lastResult(id: string): ExperimentRun | undefined {
    return this.results.get(id);
  }

  /** Each experiment's availability; one that does not answer in time counts as unavailable. */
  async availability(experiment: Experiment): Promise<Availability> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Availability>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            available: false,
            reason: `Its availability check did not answer within ${AVAILABILITY_TIMEOUT_MS / 1000} s.`,
            howTo: 'Check that Kafka is running (`npm run kafka:start`) and reload the page.',
          }),
        AVAILABILITY_TIMEOUT_MS,
      );
    });
    try {
      return await Promise.race([
        experiment.availability(this.broker).catch((error: unknown): Availability => ({
          available: false,
          reason: `Its availability check failed: ${error instanceof Error ? error.message : String(error)}`,
          howTo: 'See the console log.',
        })),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Starts `id` in the background; refuses while another runs, or when it cannot run here. */
  async start(id: string): Promise<RunningExperiment> {
    const experiment = this.find(id);
    if (experiment === undefined) throw new RunRefusedError(404, `There is no experiment "${id}".`);
    if (this.closed) throw new RunRefusedError(503, 'The console is stopping.');
    if (this.current !== undefined)
      throw new RunRefusedError(
        409,
        `"${this.current.experimentId}" is running: stop it or wait for it to end.`,
      );
    const controller = new AbortController();
    const steps: ExperimentStep[] = [];
    // Taken before the first await, so that a second request in the meantime is refused.
    let finish: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const namePrefix = labPrefix(id);
    const run = {
      experimentId: id,
      namePrefix,
      startedAt: new Date(),
      steps,
      stopping: false,
      controller,
      done,
    };
    this.current = run;
    try {
      const availability = await this.availability(experiment);
      if (!availability.available)
        throw new RunRefusedError(
          503,
          `"${id}" cannot run here: ${availability.reason} ${availability.howTo}`,
        );
      // Stopped, or the console closing, while availability was being checked: never start.
      if (this.closed || controller.signal.aborted)
        throw new RunRefusedError(503, 'Stopped before it started.');
    } catch (error) {
      this.current = undefined;
      finish();
      throw error;
    }
    this.notify(id);
    void this.runner(experiment, {
      ...this.broker,
      namePrefix,
      signal: controller.signal,
      onStep: (step) => {
        steps.push(step);
        this.notify(id);
      },
    })
      .then(
        (result) => this.results.set(id, result),
        // runExperiment turns failures into verdicts; this is for a runner that throws anyway.
        (error: unknown) =>
          this.results.set(id, {
            experimentId: id,
            namePrefix,
            startedAt: run.startedAt,
            durationMs: Date.now() - run.startedAt.getTime(),
            stopped: controller.signal.aborted,
            steps,
            verdict: {
              passed: false,
              summary: `The run failed: ${error instanceof Error ? error.message : String(error)}`,
              evidence: [],
            },
          }),
      )
      .finally(() => {
        this.current = undefined;
        finish();
        this.notify(id);
      });
    return run;
  }

  /** Aborts the running experiment (it still cleans up); false when none runs. */
  stop(): RunningExperiment | undefined {
    const run = this.current;
    if (run === undefined) return undefined;
    this.current = { ...run, stopping: true };
    run.controller.abort();
    this.notify(run.experimentId);
    return run;
  }

  /** The page's streams; their number is capped where they are opened (CONSOLE_MAX_EXPERIMENT_STREAMS). */
  subscribe(listener: RunListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The console's shutdown: no new run, the current one aborted and its cleanup awaited. */
  async close(): Promise<void> {
    this.closed = true;
    const run = this.current;
    this.stop();
    await run?.done;
    this.listeners.clear();
  }

  private notify(id: string): void {
    for (const listener of this.listeners) {
      try {
        listener(id);
      } catch {
        // A closed stream; its own close handler unsubscribes it.
      }
    }
  }
}
