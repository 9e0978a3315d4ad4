// The classic Kafka experiments this project was built around, each runnable against the real
// broker on its own topics and groups: by the console's Experiments page and by the tests, from
// this one implementation.
export * from './experiment';
export { deadLettersExperiment } from './dead-letters/dead-letters.experiment';
export { windowsExperiment } from './windows/windows.experiment';
export { durabilityExperiment } from './durability/durability.experiment';
