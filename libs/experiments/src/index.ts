// The classic Kafka experiments this project was built around, each runnable against the real
// broker on its own topics and groups: by the console's Experiments page and by the tests, from
// this one implementation.
export * from './experiment';
export * from './registry';
export * from './run-experiment';
export {
  kafkaCliAvailability,
  locateKafkaCli,
  runKafkaTool,
  type KafkaCliTools,
} from './kafka-cli/kafka-cli';
export { partitionSize, type PartitionSizeQuery } from './kafka-cli/log-dirs';
export { labPrefix, listLabResources, type LabResourceNames } from './support/lab-resources';
export { compactionExperiment } from './compaction/compaction.experiment';
export { consumerGroupsExperiment } from './consumer-groups/consumer-groups.experiment';
export { deadLettersExperiment } from './dead-letters/dead-letters.experiment';
export { windowsExperiment } from './windows/windows.experiment';
export { durabilityExperiment } from './durability/durability.experiment';
