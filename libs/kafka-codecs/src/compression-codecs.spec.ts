import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync, zstdCompressSync } from 'node:zlib';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { compressFrameSync } from 'lz4-napi';
import { compressSync } from 'snappy';
import { describe, expect, it } from 'vitest';
import {
  LZ4_INLINE_MAX_BYTES,
  lz4DecompressedBound,
  MAX_DECOMPRESSED_BATCH_BYTES,
  registerCompressionCodecs,
} from './compression-codecs';

interface Codec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}
registerCompressionCodecs();
const codec = (type: CompressionTypes) => (CompressionCodecs as Record<number, () => Codec>)[type]!();

/** What snappy-java's SnappyOutputStream (the Java producer's snappy) writes: xerial blocks. */
function xerial(...blocks: Buffer[]): Buffer {
  const header = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
  const framed = blocks.flatMap((block) => {
    const compressed = compressSync(block);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(compressed.length);
    return [length, compressed];
  });
  return Buffer.concat([header, ...framed]);
}

/** How often this thread has slept and been woken: its voluntary context switches (Linux). */
const wakeups = (): number =>
  Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(readFileSync('/proc/thread-self/status', 'utf8'))![1]);

describe('compression codecs', () => {
  it('round-trips each codec kafkajs lacks', async () => {
    const records = Buffer.from('records '.repeat(500));
    for (const type of [CompressionTypes.Snappy, CompressionTypes.LZ4, CompressionTypes.ZSTD]) {
      const compressed = await codec(type).compress({ buffer: records });
      expect(compressed.length, String(type)).toBeLessThan(records.length);
      expect(await codec(type).decompress(compressed)).toEqual(records);
    }
  });

  it("reads the Java client's xerial-framed snappy as well as raw snappy", async () => {
    const [a, b] = [Buffer.from('first block '.repeat(50)), Buffer.from('second block '.repeat(50))];
    expect(await codec(CompressionTypes.Snappy).decompress(xerial(a, b))).toEqual(Buffer.concat([a, b]));
    expect(await codec(CompressionTypes.Snappy).decompress(compressSync(a))).toEqual(a);
  });

  it('refuses a batch that would decompress past the bound (a decompression bomb), before allocating it', async () => {
    const bomb = zstdCompressSync(Buffer.alloc(MAX_DECOMPRESSED_BATCH_BYTES + 1));
    expect(bomb.length).toBeLessThan(64 * 1024);
    await expect(codec(CompressionTypes.ZSTD).decompress(bomb)).rejects.toThrow();
    // A raw snappy block that claims 4 GiB: its length varint alone is read.
    const claims = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]);
    await expect(codec(CompressionTypes.Snappy).decompress(claims)).rejects.toThrow(/over 67108864/);
    // gzip replaces kafkajs's own, which had no bound.
    const gzipBomb = gzipSync(Buffer.alloc(MAX_DECOMPRESSED_BATCH_BYTES + 1));
    await expect(codec(CompressionTypes.GZIP).decompress(gzipBomb)).rejects.toThrow();
  });

  it('refuses an lz4 bomb from its block headers, and bounds real frames by their size plus a block per frame', async () => {
    // Full 64 KiB blocks of zeros, a few hundred bytes each: over 64 MiB from ~270 KiB.
    const bomb = compressFrameSync(Buffer.alloc(MAX_DECOMPRESSED_BATCH_BYTES + 1));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    await expect(codec(CompressionTypes.LZ4).decompress(bomb)).rejects.toThrow(
      /lz4: may decompress to over 67108864/,
    );
    // Real frames pass: with checksums, random bytes, two frames and a skippable one between them.
    const text = Buffer.from('records '.repeat(20_000));
    const noise = randomBytes(1000);
    const skippable = Buffer.from([0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
    const frames = Buffer.concat([
      compressFrameSync(text, { blockChecksums: true, contentChecksum: true }),
      skippable,
      compressFrameSync(noise),
    ]);
    const bound = lz4DecompressedBound(frames);
    expect(bound).toBeGreaterThanOrEqual(text.length + noise.length);
    expect(bound).toBeLessThanOrEqual(text.length + noise.length + 2 * 64 * 1024); // a partial block per frame
    expect(await codec(CompressionTypes.LZ4).decompress(compressFrameSync(noise))).toEqual(noise);
    expect(() => lz4DecompressedBound(frames.subarray(0, 20))).toThrow(/truncated/);
    expect(() => lz4DecompressedBound(Buffer.from('not lz4 at all'))).toThrow(/magic/);
  });

  it('compresses and decompresses a small lz4 batch on the calling thread, a large one on the pool', async () => {
    const lz4 = codec(CompressionTypes.LZ4);
    const event = Buffer.from('{"type":"order.placed","data":{"orderId":"3f1c","items":[]}} '.repeat(16));
    const compressed = await lz4.compress({ buffer: event });
    // On libuv's thread pool the event loop sleeps until a worker hands each result back; on the
    // calling thread nothing sleeps at all.
    const before = wakeups();
    for (let i = 0; i < 200; i++) {
      await lz4.compress({ buffer: event });
      await lz4.decompress(compressed);
    }
    expect(wakeups() - before).toBeLessThan(20);
    // Past the bound both directions still work (on the pool).
    const large = randomBytes(2 * LZ4_INLINE_MAX_BYTES);
    const big = await lz4.compress({ buffer: large });
    expect(big.length).toBeGreaterThan(LZ4_INLINE_MAX_BYTES);
    expect(await lz4.decompress(big)).toEqual(large);
  });
});
