import { EventHeaders } from './header-names';
import { encodeHeaders, metadataOf, triageRecord } from './event-envelope';
import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { PIPELINE_CONTRACTS } from '../events/read-event';

const orderId = '0b6f8a3e-5d4c-4f1a-9a2b-3c4d5e6f7a8b';
const stock = { sku: 'SKU-TEA', available: 10, reserved: 0, updatedAt: '2025-01-31T12:00:00.000Z' };

function record(payload: unknown, dataSchema?: string): KafkaMessage {
  const metadata = metadataOf(
    { topic: 'inventory.stock', key: 'SKU-TEA', type: 'stock.changed', payload, correlationId: orderId },
    'inventory-service',
  );
  const headers = {
    ...encodeHeaders(metadata),
    ...(dataSchema ? { [EventHeaders.dataSchema]: dataSchema } : {}),
  };
  return {
    key: Buffer.from('SKU-TEA'),
    value: Buffer.from(JSON.stringify(payload)),
    timestamp: '0',
    attributes: 0,
    offset: '0',
    headers,
  };
}

const triage = (message: KafkaMessage) =>
  triageRecord('inventory.stock', message, PIPELINE_CONTRACTS, () => true);

describe('triageRecord with the pipeline contracts', () => {
  it('stamps the current version on what a producer writes', () => {
    const metadata = metadataOf(
      { topic: 'orders', key: orderId, type: 'order.placed', payload: {}, correlationId: orderId },
      'order-service',
    );
    expect(metadata.dataSchema).toBe('urn:order-pipeline:order.placed:v1');
  });

  it('hands a handler the payload without a field its schema does not know (an added optional field)', () => {
    expect(triage(record({ ...stock, warehouse: 'B' }))).toMatchObject({ kind: 'event', payload: stock });
  });

  it('dead-letters a version the contracts do not accept, listing the ones it reads', () => {
    expect(triage(record(stock, 'urn:order-pipeline:stock.changed:v2'))).toEqual({
      kind: 'poison',
      reason:
        'unsupported ce_dataschema "urn:order-pipeline:stock.changed:v2" (this consumer reads "urn:order-pipeline:stock.changed:v1")',
    });
  });

  it('still dead-letters a payload that violates the schema', () => {
    expect(triage(record({ ...stock, available: 'ten' }))).toMatchObject({
      kind: 'poison',
      reason: expect.stringMatching(/^payload violates the "stock.changed" schema: available: /) as unknown,
    });
  });
});
