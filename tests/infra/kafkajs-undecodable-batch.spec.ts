/**
 * Guards the record-batch part of patches/kafkajs+2.2.4.patch: kafkajs 2.2.4 threw from the fetch
 * decoder on a batch it could not decode (a codec it lacks: "Snappy compression not implemented";
 * bytes that do not decompress), which rejected the whole fetch on every retry and crash-looped
 * the consumer group. The patched decoder hands one placeholder record at the batch's last offset,
 * with the offset range and the error, and the other batches of the fetch decode as before.
 *
 * Encodes batches with kafkajs's own encoder and decodes them as a fetch response does: no broker.
 */
import { createRequire } from 'node:module';
import { registerCompressionCodecs, undecodableBatchOf } from '@pipeline/kafka-codecs';
import { CompressionCodecs, CompressionTypes, type KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';

const load = createRequire(__filename);
type Encoded = { readonly buffer: Buffer };
const { RecordBatch: encodeBatch } = load('kafkajs/src/protocol/recordBatch/v0') as {
  RecordBatch: (batch: {
    compression: CompressionTypes;
    firstOffset: string;
    lastOffsetDelta: number;
    records: Encoded[];
  }) => Promise<Encoded>;
};
const encodeRecord = load('kafkajs/src/protocol/recordBatch/record/v0') as (record: {
  offsetDelta: number;
  key: Buffer | null;
  value: Buffer;
  headers: Record<string, string>;
}) => Encoded;
const decodeMessages = load('kafkajs/src/protocol/requests/fetch/v4/decodeMessages') as (
  decoder: unknown,
) => Promise<KafkaMessage[]>;
const Decoder = load('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => unknown;

/** The bytes of a record batch before its records: offset, length, epoch, magic, crc, attributes ... */
const RECORD_BATCH_HEADER_BYTES = 61;

async function batch(compression: CompressionTypes, firstOffset: number, values: string[]): Promise<Buffer> {
  const records = values.map((value, offsetDelta) =>
    encodeRecord({
      offsetDelta,
      key: Buffer.from(`k${offsetDelta}`),
      value: Buffer.from(value),
      headers: { h: 'v' },
    }),
  );
  const encoded = await encodeBatch({
    compression,
    firstOffset: String(firstOffset),
    lastOffsetDelta: values.length - 1,
    records,
  });
  return encoded.buffer;
}

/** A partition's record set in a fetch response: its byte length, then the batches. */
function decodeFetched(...batches: Buffer[]): Promise<KafkaMessage[]> {
  const body = Buffer.concat(batches);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return decodeMessages(new Decoder(Buffer.concat([size, body])));
}

describe('kafkajs record-batch decoder (patched)', () => {
  registerCompressionCodecs();

  it('decodes every codec the broker accepts', async () => {
    for (const codec of [
      CompressionTypes.GZIP,
      CompressionTypes.Snappy,
      CompressionTypes.LZ4,
      CompressionTypes.ZSTD,
    ]) {
      const messages = await decodeFetched(await batch(codec, 10, ['a', 'b', 'c']));
      expect(messages.map((m) => [m.offset, m.value?.toString()])).toEqual([
        ['10', 'a'],
        ['11', 'b'],
        ['12', 'c'],
      ]);
    }
  });

  it('gives a batch whose bytes do not decompress as one placeholder at its last offset; the next batch decodes', async () => {
    const corrupt = await batch(CompressionTypes.ZSTD, 20, ['a', 'b', 'c']);
    corrupt.fill(0x5a, RECORD_BATCH_HEADER_BYTES + 4);
    const next = await batch(CompressionTypes.None, 23, ['d']);

    const messages = await decodeFetched(corrupt, next);

    expect(messages.map((m) => [m.offset, m.value?.toString() ?? null])).toEqual([
      ['22', null],
      ['23', 'd'],
    ]);
    expect(undecodableBatchOf(messages[0]!)).toMatchObject({
      firstOffset: '20',
      lastOffset: '22',
      compression: 4,
    });
    expect(undecodableBatchOf(messages[0]!)?.error).toMatch(/^Error: /);
    expect(undecodableBatchOf(messages[1]!)).toBeUndefined();
  });

  it('gives a batch of a codec the client lacks as a placeholder naming the error', async () => {
    const snappy = await batch(CompressionTypes.Snappy, 0, ['a', 'b']);
    const codecs = CompressionCodecs as Record<number, () => unknown>;
    const registered = codecs[CompressionTypes.Snappy]!;
    // As kafkajs 2.2.4 ships it: no snappy.
    codecs[CompressionTypes.Snappy] = () => {
      const error = new Error('Snappy compression not implemented');
      error.name = 'KafkaJSNotImplemented';
      throw error;
    };
    try {
      const [placeholder, ...rest] = await decodeFetched(snappy);
      expect(rest).toEqual([]);
      expect(placeholder).toMatchObject({ offset: '1', key: null, value: null, headers: {} });
      expect(undecodableBatchOf(placeholder!)).toEqual({
        firstOffset: '0',
        lastOffset: '1',
        compression: 2,
        error: 'KafkaJSNotImplemented: Snappy compression not implemented',
      });
    } finally {
      codecs[CompressionTypes.Snappy] = registered;
    }
  });

  it('gives a batch whose codec id no Kafka version defines (5-7) as a placeholder, not as plain records', async () => {
    const odd = await batch(CompressionTypes.None, 30, ['a', 'b']);
    // The attributes' low byte: offset 8 + length 4 + epoch 4 + magic 1 + crc 4 + high byte 1.
    odd.writeUInt8(odd.readUInt8(22) | 5, 22);
    const [placeholder, ...rest] = await decodeFetched(odd);
    expect(rest).toEqual([]);
    expect(undecodableBatchOf(placeholder!)).toEqual({
      firstOffset: '30',
      lastOffset: '31',
      compression: 5,
      error: 'Error: unknown compression codec id 5',
    });
  });

  it('still stops at a batch cut short by the fetch size (the tail of a fetch), as kafkajs does', async () => {
    const whole = await batch(CompressionTypes.None, 0, ['a']);
    const cut = (await batch(CompressionTypes.None, 1, ['b'])).subarray(0, 30);
    const messages = await decodeFetched(whole, cut);
    expect(messages.map((m) => m.offset)).toEqual(['0']);
  });
});
