import type { KafkaMessage } from 'kafkajs';
import { COMPRESSION_NAMES, type CompressionName } from './compression-codecs';

/**
 * A record batch kafkajs could not decode (a codec it lacks, bytes that do not decompress or
 * parse). The patched decoder (patches/kafkajs+2.2.4.patch) hands one placeholder message at the
 * batch's last offset in its place, instead of rejecting the whole fetch: `undecodable` on it says
 * which offsets the batch held and why it failed. Its key, value and headers are empty.
 */
export interface UndecodableBatch {
  readonly firstOffset: string;
  readonly lastOffset: string;
  /** The batch's codec id (attributes & 7): 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd. */
  readonly compression: number;
  readonly error: string;
}

/**
 * A message as the patched decoder hands it over: `undecodable` is set on a placeholder only. A
 * property, not a function, because the consumer reads it for every record.
 */
export type FetchedMessage = KafkaMessage & { readonly undecodable?: UndecodableBatch };

/** The undecodable batch a fetched message stands for, if it is such a placeholder. */
export const undecodableBatchOf = (message: KafkaMessage): UndecodableBatch | undefined =>
  (message as FetchedMessage).undecodable;

/** The codec's name, or `codec <id>` for an id no Kafka version defines. */
export const compressionNameOf = (id: number): CompressionName | `codec ${number}` =>
  COMPRESSION_NAMES[id] ?? `codec ${id}`;

/** `topic/partition@first-last (codec): error`, for logs. */
export const describeUndecodable = (topic: string, partition: number, batch: UndecodableBatch): string =>
  `${topic}/${partition}@${batch.firstOffset}-${batch.lastOffset} (${compressionNameOf(batch.compression)}): ${batch.error}`;
