import { partitionSize as logDirsPartitionSize } from '@pipeline/experiments';
import { KAFKA_BROKERS } from './kafka';

/**
 * The size in bytes of `topic`'s partition as Kafka's own log-dirs tool reports it: the
 * experiments library's implementation (the Compaction experiment uses the same), on the test broker.
 */
export const partitionSize = (topic: string, partition = 0): Promise<number> =>
  logDirsPartitionSize({ brokers: KAFKA_BROKERS, topic, partition });
