// The contract compatibility gate: the contracts against the last committed snapshot
// (libs/contracts/snapshot/contracts.snapshot.json), then what `npm run contracts:snapshot` does.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  OrderPlacedEvent,
  OrderPlacedPayloadSchema,
  acceptedVersion,
  type EventDescriptor,
} from '@pipeline/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  SNAPSHOT_FILE,
  buildSnapshot,
  compareSnapshots,
  planSnapshot,
  type ContractsSnapshot,
} from './contracts-snapshot';

const ROOT = path.resolve(__dirname, '../..');
const committed = JSON.parse(readFileSync(path.join(ROOT, SNAPSHOT_FILE), 'utf8')) as ContractsSnapshot;
const current = buildSnapshot();
const comparison = compareSnapshots(committed, current);

describe(`the contracts against ${SNAPSHOT_FILE}`, () => {
  it('break no consumer or producer of a committed version (a breaking change is a new version)', () => {
    expect(comparison.breaking, 'make it a new version of the event: see docs/contracts.md').toEqual([]);
  });

  it('have no version the snapshot lacks (run `npm run build && npm run contracts:snapshot`)', () => {
    expect(comparison.added, 'run `npm run build && npm run contracts:snapshot` and commit it').toEqual([]);
  });

  it('still accept every version of the snapshot', () => {
    expect(comparison.dropped, 'keep it in `previous`, or drop it with the tool: docs/contracts.md').toEqual(
      [],
    );
  });

  it('are what the snapshot holds, compatible changes included (run `npm run contracts:snapshot`)', () => {
    expect(committed, 'run `npm run build && npm run contracts:snapshot`').toEqual(
      JSON.parse(JSON.stringify(current)),
    );
  });
});

describe('npm run contracts:snapshot', () => {
  const v1 = buildSnapshot([OrderPlacedEvent]);
  const withSchema = (schema: z.ZodType, extra: Partial<EventDescriptor> = {}) =>
    buildSnapshot([{ ...OrderPlacedEvent, schema, ...extra }]);

  it('takes a compatible change: an optional field added', () => {
    const next = withSchema(OrderPlacedPayloadSchema.extend({ giftMessage: z.string().optional() }));
    expect(planSnapshot(v1, next)).toEqual({
      write: next,
      lines: ['order.placed v1: compatible change'],
      errors: [],
    });
  });

  it('refuses to overwrite a version with a breaking change, naming type, version and field', () => {
    const next = withSchema(OrderPlacedPayloadSchema.omit({ customerEmail: true }));
    expect(planSnapshot(v1, next)).toEqual({
      lines: [],
      errors: ['order.placed v1: required field "customerEmail" was removed'],
    });
  });

  it('refuses a topic or record key change', () => {
    const moved = buildSnapshot([{ ...OrderPlacedEvent, topic: 'payments', keySchema: z.string() }]);
    expect(planSnapshot(v1, moved).errors).toEqual([
      'order.placed v1: topic changed from "orders" to "payments"',
      'order.placed v1: the record key: format changed from "uuid" to none',
    ]);
  });

  it('adds a new version beside the old one, which consumers keep reading', () => {
    const v2 = OrderPlacedPayloadSchema.omit({ customerEmail: true }).extend({ contact: z.email() });
    const next = withSchema(v2, {
      version: 2,
      previous: [
        acceptedVersion(1, OrderPlacedPayloadSchema, ({ customerEmail, ...rest }) => ({
          ...rest,
          contact: customerEmail,
        })),
      ],
    });
    const plan = planSnapshot(v1, next);
    expect(plan.errors).toEqual([]);
    expect(plan.lines).toEqual(['order.placed v2: new', 'order.placed v1: unchanged']);
    expect(Object.keys(plan.write?.events['order.placed'] ?? {})).toEqual(['v1', 'v2']);
    expect(plan.write?.events['order.placed']?.v2?.dataSchema).toBe('urn:order-pipeline:order.placed:v2');
  });

  it('drops a version consumers no longer read only when told, saying how long its records stay', () => {
    const v2only = withSchema(z.strictObject({ orderId: z.uuid() }), { version: 2 });
    expect(planSnapshot(v1, v2only).errors).toEqual([
      'order.placed v1: no longer accepted, but "orders" keeps records 7 days and "order.dead-letter" keeps ' +
        'records 30 days (a replay): keep it in `previous` of the descriptor, or once its records are gone ' +
        'run with --drop order.placed:v1',
    ]);
    expect(planSnapshot(v1, v2only, ['order.placed:v1'])).toMatchObject({ write: v2only, errors: [] });
  });

  it('starts a snapshot from nothing', () => {
    expect(planSnapshot(undefined, v1)).toEqual({ write: v1, lines: ['order.placed v1: new'], errors: [] });
  });
});
