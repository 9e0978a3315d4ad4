import { compactionExperiment } from './compaction/compaction.experiment';
import { consumerGroupsExperiment } from './consumer-groups/consumer-groups.experiment';
import { deadLettersExperiment } from './dead-letters/dead-letters.experiment';
import { durabilityExperiment } from './durability/durability.experiment';
import type { Experiment } from './experiment';
import { windowsExperiment } from './windows/windows.experiment';

/** Every experiment, in the order the page shows them. */
export const EXPERIMENTS: readonly Experiment[] = [
  consumerGroupsExperiment,
  deadLettersExperiment,
  compactionExperiment,
  windowsExperiment,
  durabilityExperiment,
];

export const findExperiment = (id: string): Experiment | undefined =>
  EXPERIMENTS.find((experiment) => experiment.id === id);
