export { deadLetterPosition, toDeadLetterRecord, type DeadLetterRecord } from './dead-letter-record';
export { FirstCopies, groupCopies, incidentOf, type DeadLetterCopies } from './dead-letter-copies';
export {
  DeadLetterTopicNotFoundError,
  readDeadLetters,
  type DeadLetterSnapshot,
  type PartitionRange,
  type ReadDeadLettersOptions,
} from './dead-letter-reader';
export {
  MISSING_HEADER,
  summariseDeadLetters,
  type Count as DeadLetterCount,
  type DeadLetterSummary,
} from './dead-letter-summary';
export { filterDeadLetters, parseIsoInstant, type DeadLetterFilter } from './dead-letter-filter';
export {
  DIAGNOSTIC_HEADERS,
  planReplay,
  replayHeaders,
  replayTargets,
  sendReplay,
  type DuplicateCopy,
  type ReplayItem,
  type ReplayPlan,
  type ReplayResult,
  type SendReplayOptions,
  type SkippedRecord,
} from './replay';
export {
  renderDuplicates,
  renderPlan,
  renderRecords,
  renderReplayResult,
  renderSkipped,
  renderSummary,
  toDeadLetterRow,
  type DeadLetterRow,
} from './dead-letter-report';
