/**
 * Guards the record-decoder part of patches/kafkajs+2.2.4.patch: kafkajs 2.2.4 built a record's
 * headers with a reduce that spread the whole object again for every header (n objects and n^2/2
 * property copies per record, 2.5 % of a consumer's CPU in a V8 profile with our ten CloudEvents
 * headers). The patched decoder fills one object; what it returns must not change.
 *
 * The record encoder's part: a header with a null value is written (length -1) instead of
 * throwing. Round-trips records through kafkajs's own record encoder and decoder: no broker needed.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

type Headers = Record<string, Buffer | string | (Buffer | string)[] | undefined>;
interface EncodedRecord {
  readonly buffer: Buffer;
}
interface DecodedRecord {
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Record<string, Buffer | Buffer[]>;
}

// Not part of kafkajs's public API: the patch changes the decoder module.
const load = createRequire(__filename);
const encodeRecord = load('kafkajs/src/protocol/recordBatch/record/v0') as (record: {
  offsetDelta?: number;
  key: Buffer | null;
  value: Buffer | null;
  headers?: Headers;
}) => EncodedRecord;
const decodeRecord = load('kafkajs/src/protocol/recordBatch/record/v0/decoder') as (
  decoder: unknown,
  context: Record<string, unknown>,
) => DecodedRecord;
const Decoder = load('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => {
  readVarIntBytes(): Buffer;
};

function roundTrip(headers: Headers, offsetDelta = 0): DecodedRecord {
  const encoded = encodeRecord({ offsetDelta, key: Buffer.from('k'), value: Buffer.from('v'), headers });
  // A record in a batch is length-prefixed: read it out as the batch decoder does.
  const bytes = new Decoder(encoded.buffer).readVarIntBytes();
  return decodeRecord(new Decoder(bytes), { firstOffset: '41', firstTimestamp: '0', magicByte: 2 });
}

describe('kafkajs record decoder (patched)', () => {
  it('decodes every header of a record, in order, as Buffers', () => {
    const headers = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`ce_h${i}`, `value-${i}`] as const),
    );
    const record = roundTrip(headers, 1);
    expect(record.offset).toBe('42');
    expect(record.key?.toString()).toBe('k');
    expect(Object.keys(record.headers)).toEqual(Object.keys(headers));
    for (const [name, value] of Object.entries(headers))
      expect(record.headers[name]).toEqual(Buffer.from(value));
  });

  it('gives a repeated header as an array of its values, in order', () => {
    const record = roundTrip({ once: 'a', twice: ['b', 'c'], thrice: ['d', 'e', 'f'] });
    expect(record.headers['once']).toEqual(Buffer.from('a'));
    expect(record.headers['twice']).toEqual([Buffer.from('b'), Buffer.from('c')]);
    expect(record.headers['thrice']).toEqual([Buffer.from('d'), Buffer.from('e'), Buffer.from('f')]);
  });

  it('keeps headers named like Object.prototype members as plain own values', () => {
    const headers: Headers = Object.fromEntries([
      ['__proto__', 'x'],
      ['constructor', 'y'],
      ['toString', 'z'],
    ]);
    const record = roundTrip(headers);
    expect(Object.getPrototypeOf(record.headers)).toBe(Object.prototype);
    expect(Object.keys(record.headers).sort()).toEqual(['__proto__', 'constructor', 'toString']);
    const own = (name: string): unknown => Object.getOwnPropertyDescriptor(record.headers, name)?.value;
    expect(own('__proto__')).toEqual(Buffer.from('x'));
    expect(own('constructor')).toEqual(Buffer.from('y'));
    expect(own('toString')).toEqual(Buffer.from('z'));
  });

  it('encodes a header whose value is null (librdkafka and Java write them), and decodes it as null', () => {
    // Upstream's encoder measured the value before checking it for null and threw on the whole
    // send: a dead letter of such a record could never be written.
    const record = roundTrip({ nothing: null as unknown as string, after: 'x' });
    expect(record.headers.nothing).toBeNull();
    expect(record.headers.after).toEqual(Buffer.from('x'));
  });
});
