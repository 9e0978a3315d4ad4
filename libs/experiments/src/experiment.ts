import type { Kafka } from 'kafkajs';

/** What an experiment shows besides its words: a table, log lines, or named values. */
export type Evidence =
  | {
      readonly kind: 'table';
      readonly caption: string;
      readonly columns: readonly string[];
      readonly rows: readonly (readonly string[])[];
    }
  | { readonly kind: 'log'; readonly caption: string; readonly lines: readonly string[] }
  | {
      readonly kind: 'values';
      readonly caption: string;
      readonly entries: readonly (readonly [string, string])[];
    };

/** One thing that happened, in the order it happened. */
export interface ExperimentStep {
  /** Milliseconds since the experiment started. */
  readonly atMs: number;
  readonly text: string;
  readonly evidence?: Evidence;
}

/** The acceptance criterion, decided on the evidence. */
export interface ExperimentVerdict {
  readonly passed: boolean;
  /** One sentence: what held, or what did not. */
  readonly summary: string;
  readonly evidence: readonly Evidence[];
}

export interface ExperimentContext {
  /** A kafkajs client for the broker the experiment runs against. */
  readonly kafka: Kafka;
  readonly brokers: readonly string[];
  /** Prefix of every topic and group the experiment creates (unique per run), never the pipeline's names. */
  readonly namePrefix: string;
  /** Aborted when the user (or the console's shutdown) stops the run: stop at the next await and clean up. */
  readonly signal: AbortSignal;
  /** Reports a step as it happens (the page streams them live). */
  step(text: string, evidence?: Evidence): void;
}

/** Can this experiment run here? When not, the page says why and what to do. */
export type Availability =
  | { readonly available: true }
  | { readonly available: false; readonly reason: string; readonly howTo: string };

export interface Experiment {
  /** Stable, kebab-case: the page's URL and the tests use it. */
  readonly id: string;
  readonly title: string;
  /** What it shows about Kafka, in a sentence or two. */
  readonly description: string;
  /** The acceptance criterion, as the page states it before the run. */
  readonly criterion: string;
  availability(context: Pick<ExperimentContext, 'kafka' | 'brokers'>): Promise<Availability>;
  /**
   * Runs the experiment on its own topics and groups and decides the criterion. It removes every
   * topic and group it created before it returns or throws, aborted or not.
   */
  run(context: ExperimentContext): Promise<ExperimentVerdict>;
}
