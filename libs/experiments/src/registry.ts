import { compactionExperiment } from './compaction/compaction.experiment';
import { consumerGroupsExperiment } from './consumer-groups/consumer-groups.experiment';
import type { Experiment } from './experiment';

/** Every experiment, in the order the page shows them. */
export const EXPERIMENTS: readonly Experiment[] = [consumerGroupsExperiment, compactionExperiment];

export const findExperiment = (id: string): Experiment | undefined =>
  EXPERIMENTS.find((experiment) => experiment.id === id);
