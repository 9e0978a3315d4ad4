import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { compressFrame, compressFrameSync, decompressFrame, decompressFrameSync } from 'lz4-napi';
import { compress as snappyCompress, uncompress as snappyUncompress } from 'snappy';

/**
 * The codecs a Kafka record batch may use (its attributes' low three bits). kafkajs 2.2.4 decodes
 * only gzip by itself and throws on the rest; Java, Go and librdkafka producers commonly send
 * snappy, lz4 or zstd. Why these implementations: docs/messaging.md#compression.
 */
export type CompressionName = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

export const COMPRESSION_NAMES: readonly CompressionName[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

export const CompressionTypeOf: Readonly<Record<CompressionName, CompressionTypes>> = {
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
};

/** What kafkajs hands a codec to compress: its encoder, whose `buffer` holds the records. */
interface Encoded {
  readonly buffer: Buffer;
}

interface Codec {
  compress(encoder: Encoded): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

/**
 * The Java client's snappy (snappy-java's SnappyOutputStream) frames its blocks the "xerial" way:
 * an 8-byte magic, two 4-byte versions, then blocks of a 4-byte big-endian length and raw snappy.
 * librdkafka and Go write raw snappy. Both read here; raw snappy is written, which every client
 * reads (snappy-java falls back to raw when the magic is absent).
 */
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_BYTES = 16;

/**
 * The most one record batch may decompress to. A batch of a few kilobytes can claim gigabytes (a
 * decompression bomb); past this it fails to decode, and the consumer dead-letters it by its
 * offsets rather than running out of memory on every fetch. Far above any batch a producer's
 * batch size and the broker's 1 MiB `message.max.bytes` make in practice.
 */
export const MAX_DECOMPRESSED_BATCH_BYTES = 64 * 1024 * 1024;

/** Raw snappy starts with the uncompressed length (a varint): checked before anything is allocated. */
function snappyLength(block: Buffer): number {
  let length = 0;
  for (let at = 0; at < Math.min(block.length, 5); at += 1) {
    const byte = block[at]!;
    length += (byte & 0x7f) * 2 ** (7 * at);
    if ((byte & 0x80) === 0) return length;
  }
  throw new Error('snappy: malformed length');
}

async function unsnappyBlock(block: Buffer): Promise<Buffer> {
  const length = snappyLength(block);
  if (length > MAX_DECOMPRESSED_BATCH_BYTES)
    throw new Error(`snappy: ${length} bytes decompressed, over ${MAX_DECOMPRESSED_BATCH_BYTES}`);
  return asBuffer(await snappyUncompress(block));
}

async function unsnappy(buffer: Buffer): Promise<Buffer> {
  if (buffer.length < XERIAL_HEADER_BYTES || !buffer.subarray(0, 8).equals(XERIAL_MAGIC)) {
    return unsnappyBlock(buffer);
  }
  const blocks: Buffer[] = [];
  let total = 0;
  for (let at = XERIAL_HEADER_BYTES; at < buffer.length;) {
    if (at + 4 > buffer.length) throw new Error('xerial snappy: truncated block length');
    const length = buffer.readUInt32BE(at);
    at += 4;
    if (at + length > buffer.length) throw new Error('xerial snappy: truncated block');
    const block = await unsnappyBlock(buffer.subarray(at, at + length));
    total += block.length;
    if (total > MAX_DECOMPRESSED_BATCH_BYTES)
      throw new Error(`xerial snappy: over ${MAX_DECOMPRESSED_BATCH_BYTES} bytes decompressed`);
    blocks.push(block);
    at += length;
  }
  return Buffer.concat(blocks);
}

const asBuffer = (value: string | Buffer): Buffer => (typeof value === 'string' ? Buffer.from(value) : value);

/**
 * The largest lz4 input compressed on the calling thread; a compressed batch up to a quarter of it
 * is decompressed there (lz4 at its worst expands 255 times: a few milliseconds of work at most).
 * lz4-napi's promise API runs every call on libuv's thread pool, a hand-off to a worker thread and
 * back: about four wake-ups, and on these virtual machines 0.25-0.55 ms of wall time and 0.1-0.2 ms
 * of CPU per compress and decompress of one event, where the work takes microseconds (BENCHMARKS.md).
 * At everyday rates every produce request and every fetch carries a batch of one or two events.
 * Larger batches still go to the pool, so the event loop never waits on a big one.
 */
export const LZ4_INLINE_MAX_BYTES = 64 * 1024;

const LZ4_FRAME_MAGIC = 0x184d2204;
/** A skippable frame's magic is 0x184D2A50 to 0x184D2A5F: its content is ignored. */
const LZ4_SKIPPABLE_MAGIC = 0x184d2a50;
/** The largest block a frame may hold, by its descriptor's BD byte (bits 4-6): 64 KiB to 4 MiB. */
const LZ4_BLOCK_MAX_BYTES: Readonly<Record<number, number>> = {
  4: 64 << 10,
  5: 256 << 10,
  6: 1 << 20,
  7: 4 << 20,
};

/**
 * The most a run of LZ4 frames can decompress to, read from the block headers alone: a compressed
 * block holds at most its frame's block maximum, a stored block exactly its length. Throws past
 * `MAX_DECOMPRESSED_BATCH_BYTES`, before anything is decompressed. For real data the bound is the
 * true size plus at most one block per frame; a bomb (a few hundred bytes per full block) is refused.
 */
export function lz4DecompressedBound(frames: Buffer): number {
  const need = (end: number): void => {
    if (end > frames.length) throw new Error('lz4: truncated frame');
  };
  let total = 0;
  for (let at = 0; at < frames.length;) {
    need(at + 4);
    const magic = frames.readUInt32LE(at);
    if ((magic & 0xfffffff0) === LZ4_SKIPPABLE_MAGIC) {
      need(at + 8);
      at += 8 + frames.readUInt32LE(at + 4);
      continue;
    }
    if (magic !== LZ4_FRAME_MAGIC)
      throw new Error(`lz4: 0x${magic.toString(16)} is not a frame's magic number`);
    need(at + 7);
    const flags = frames[at + 4]!;
    const blockMax = LZ4_BLOCK_MAX_BYTES[(frames[at + 5]! >> 4) & 7];
    if (blockMax === undefined) throw new Error('lz4: invalid block maximum size');
    // Descriptor: FLG, BD, an optional 8-byte content size, an optional 4-byte dictionary id, HC.
    at += 4 + 2 + (flags & 0x08 ? 8 : 0) + (flags & 0x01 ? 4 : 0) + 1;
    const blockChecksumBytes = flags & 0x10 ? 4 : 0;
    for (;;) {
      need(at + 4);
      const word = frames.readUInt32LE(at);
      at += 4;
      if (word === 0) break; // the end mark
      const stored = (word & 0x80000000) !== 0;
      const length = word & 0x7fffffff;
      total += stored ? length : blockMax;
      if (total > MAX_DECOMPRESSED_BATCH_BYTES)
        throw new Error(`lz4: may decompress to over ${MAX_DECOMPRESSED_BATCH_BYTES} bytes`);
      at += length + blockChecksumBytes;
    }
    at += flags & 0x04 ? 4 : 0; // the content checksum
  }
  return total;
}

const lz4: Codec = {
  compress: async ({ buffer }) =>
    buffer.length <= LZ4_INLINE_MAX_BYTES ? compressFrameSync(buffer) : compressFrame(buffer),
  decompress: async (buffer) => {
    lz4DecompressedBound(buffer);
    return buffer.length <= LZ4_INLINE_MAX_BYTES / 4 ? decompressFrameSync(buffer) : decompressFrame(buffer);
  },
};

// kafkajs's own gzip is zlib's gzip and unzip without a bound on the output; this one has it.
const gzip = promisify(zlib.gzip);
const unzip = promisify(zlib.unzip);
const zstdCompress = promisify(zlib.zstdCompress);
const zstdDecompress = promisify(zlib.zstdDecompress);

const CODECS: Readonly<Record<Exclude<CompressionName, 'none'>, Codec>> = {
  gzip: {
    compress: ({ buffer }) => gzip(buffer),
    decompress: (buffer) => unzip(buffer, { maxOutputLength: MAX_DECOMPRESSED_BATCH_BYTES }),
  },
  snappy: { compress: ({ buffer }) => snappyCompress(buffer), decompress: unsnappy },
  // Kafka's record batches (magic 2) carry standard LZ4 frames.
  lz4,
  // Node's zlib has zstd from Node 22.15/23.8 on; the project runs on Node 24.
  zstd: {
    compress: ({ buffer }) => zstdCompress(buffer),
    decompress: (buffer) => zstdDecompress(buffer, { maxOutputLength: MAX_DECOMPRESSED_BATCH_BYTES }),
  },
};

let registered = false;

/**
 * Registers snappy, lz4 and zstd with kafkajs, and replaces its gzip with one whose decompressed
 * size is bounded like theirs. kafkajs keeps codecs in one
 * module-wide table, so this holds for every client of the process; `createKafka` calls it, and
 * so does anything that builds a `Kafka` itself. Idempotent.
 */
export function registerCompressionCodecs(): void {
  if (registered) return;
  registered = true;
  const codecs = CompressionCodecs as Record<number, () => Codec>;
  codecs[CompressionTypes.GZIP] = () => CODECS.gzip;
  codecs[CompressionTypes.Snappy] = () => CODECS.snappy;
  codecs[CompressionTypes.LZ4] = () => CODECS.lz4;
  codecs[CompressionTypes.ZSTD] = () => CODECS.zstd;
}
