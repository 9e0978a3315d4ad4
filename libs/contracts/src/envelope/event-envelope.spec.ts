import { describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeHeaders, headerValue, metadataOf, type RawHeaders } from './event-envelope';
import { EventHeaders, RequiredEventHeaderNames } from './header-names';

const orderId = '0b6f8a3e-5d4c-4f1a-9a2b-3c4d5e6f7a8b';
const event = { topic: 'orders', key: orderId, type: 'order.placed', payload: {}, correlationId: orderId };
const asKafka = (headers: Record<string, string>): RawHeaders =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Buffer.from(value)]));
const json = Buffer.from('{"orderId":"o-1"}');

describe('the CloudEvents envelope', () => {
  it('round-trips the metadata through Kafka headers (Buffers)', () => {
    const metadata = metadataOf(
      { ...event, causationId: 'cause-1', time: new Date('2025-01-31T12:00:00.000Z') },
      'order-service',
      { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    );
    expect(metadata.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(metadata.dataSchema).toBe('urn:order-pipeline:order.placed:v1');
    expect(decodeEnvelope(json, asKafka(encodeHeaders(metadata)))).toEqual({
      ok: true,
      metadata,
      payload: { orderId: 'o-1' },
    });
  });

  it('omits the optional headers an event does not have', () => {
    const headers = encodeHeaders(metadataOf(event, 'order-service'));
    expect(Object.keys(headers)).not.toContain(EventHeaders.causationId);
    expect(Object.keys(headers)).not.toContain(EventHeaders.traceparent);
    expect(decodeEnvelope(null, headers)).toMatchObject({ ok: true, payload: null });
  });

  it('reports, never throws, what is not a well-formed event', () => {
    const headers = encodeHeaders(metadataOf(event, 'order-service'));
    expect(decodeEnvelope(json, undefined)).toEqual({
      ok: false,
      reason: `missing required headers: ${RequiredEventHeaderNames.join(', ')}`,
    });
    expect(decodeEnvelope(json, { ...headers, [EventHeaders.specVersion]: '0.3' })).toEqual({
      ok: false,
      reason: 'unsupported ce_specversion "0.3"',
    });
    expect(decodeEnvelope(json, { ...headers, [EventHeaders.contentType]: 'text/plain' })).toEqual({
      ok: false,
      reason: 'unsupported content-type "text/plain"',
    });
    expect(decodeEnvelope(Buffer.from('{'), headers)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^value is not JSON: /) as unknown,
    });
    expect(decodeEnvelope(json, { ...headers, [EventHeaders.time]: 'yesterday' })).toEqual({
      ok: false,
      reason: 'ce_time "yesterday" is not an ISO-8601 time',
    });
  });

  it('reads the first value of a repeated header', () => {
    expect(headerValue({ a: [Buffer.from('1'), Buffer.from('2')] }, 'a')).toBe('1');
    expect(headerValue({ a: undefined }, 'a')).toBeUndefined();
    expect(headerValue(undefined, 'a')).toBeUndefined();
  });

  it('reads a null header value (length -1 on the wire) as absent, never throws', () => {
    expect(headerValue({ a: null }, 'a')).toBeUndefined();
    expect(headerValue({ a: [null, Buffer.from('2')] }, 'a')).toBeUndefined();
    expect(headerValue(null, 'a')).toBeUndefined();
    const headers = asKafka(encodeHeaders(metadataOf(event, 'order-service')));
    expect(decodeEnvelope(json, { ...headers, [EventHeaders.traceparent]: null, other: null })).toMatchObject(
      {
        ok: true,
      },
    );
    expect(decodeEnvelope(json, { ...headers, [EventHeaders.type]: null })).toEqual({
      ok: false,
      reason: `missing required headers: ${EventHeaders.type}`,
    });
  });

  it('refuses an envelope header that repeats or is not UTF-8, and ignores the shape of other headers', () => {
    const headers = asKafka(encodeHeaders(metadataOf(event, 'order-service')));
    const type = Buffer.from('order.placed');
    expect(decodeEnvelope(json, { ...headers, [EventHeaders.type]: [type, Buffer.from('x')] })).toEqual({
      ok: false,
      reason: `header ${EventHeaders.type} repeats (2 values)`,
    });
    expect(decodeEnvelope(json, { ...headers, [EventHeaders.id]: Buffer.from([0xc3, 0x28]) })).toEqual({
      ok: false,
      reason: `header ${EventHeaders.id} is not UTF-8`,
    });
    const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`x-${i}`, Buffer.from([0xff])]));
    const odd = { ...many, empty: Buffer.alloc(0), twice: [Buffer.from('a'), null] };
    expect(decodeEnvelope(json, { ...headers, ...odd })).toMatchObject({
      ok: true,
      payload: { orderId: 'o-1' },
    });
    expect(decodeEnvelope(json, { ...headers, [EventHeaders.type]: [null, type] })).toMatchObject({
      ok: true,
    });
  });
});
