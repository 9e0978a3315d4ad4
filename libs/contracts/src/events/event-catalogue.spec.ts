import { describe, expect, it } from 'vitest';
import { dataSchemaOf } from '../envelope/event-envelope';
import { TopicCatalogue } from '../topics/topic-catalogue';
import { ServiceNames, deadLetterTopic } from '../topics/topic-names';
import {
  EventCatalogue,
  EventDescriptors,
  EventTypes,
  eventsOfTopic,
  isDeclaredFor,
  isEventType,
  parseEvent,
} from './event-catalogue';
import { EventConsumers } from './event-consumers';
import { OrdersCountKeySchema, ordersCountKey } from './orders-count-updated.event';

const deadLetterTopics = ServiceNames.map(deadLetterTopic);
const topicsByName = new Map(TopicCatalogue.map((spec) => [spec.name, spec]));

describe('EventCatalogue', () => {
  // The contract's events, topics and consumers: a fork's generated services may add to them,
  // never take from them (hence arrayContaining).
  it('declares the events of issue 4, keyed by their type', () => {
    expect(EventTypes).toEqual(
      expect.arrayContaining([
        'order.placed',
        'order.confirmed',
        'order.cancelled',
        'payment.authorized',
        'payment.declined',
        'payment.refunded',
        'stock.reserved',
        'stock.rejected',
        'stock.changed',
        'orders-count.updated',
      ]),
    );
    for (const [type, descriptor] of Object.entries(EventCatalogue)) expect(descriptor.type).toBe(type);
  });

  it('declares at least one event for every topic that is not a dead-letter topic', () => {
    const topics = TopicCatalogue.map((spec) => spec.name).filter((name) => !deadLetterTopics.includes(name));
    expect(topics).toEqual(
      expect.arrayContaining(['orders', 'payments', 'inventory', 'inventory.stock', 'orders-count']),
    );
    for (const topic of topics) expect(eventsOfTopic(topic), topic).not.toHaveLength(0);
  });

  it('declares no event for a dead-letter topic: they carry copies of any type', () => {
    for (const topic of deadLetterTopics) expect(eventsOfTopic(topic)).toEqual([]);
  });

  it('puts every event on a topic of the TopicCatalogue, keyed as that topic is', () => {
    for (const descriptor of EventDescriptors) {
      const topic = topicsByName.get(descriptor.topic);
      expect(topic, descriptor.type).toBeDefined();
      expect(descriptor.key, descriptor.type).toBe(topic?.key);
    }
  });

  it('declares the topics of issue 4 with their producers', () => {
    const byTopic = (topic: string) =>
      eventsOfTopic(topic).map((type) => [type, EventCatalogue[type].producer]);
    expect(byTopic('orders')).toEqual([
      ['order.placed', 'order'],
      ['order.confirmed', 'order'],
      ['order.cancelled', 'order'],
    ]);
    expect(byTopic('payments')).toEqual([
      ['payment.authorized', 'payment'],
      ['payment.declined', 'payment'],
      ['payment.refunded', 'payment'],
    ]);
    expect(byTopic('inventory')).toEqual([
      ['stock.reserved', 'inventory'],
      ['stock.rejected', 'inventory'],
    ]);
    expect(byTopic('inventory.stock')).toEqual([['stock.changed', 'inventory']]);
    expect(byTopic('orders-count')).toEqual([['orders-count.updated', 'analytics']]);
  });

  it('gives every event a version, a data schema URN and a strict object schema', () => {
    for (const descriptor of EventDescriptors) {
      expect(Number.isInteger(descriptor.version) && descriptor.version >= 1).toBe(true);
      expect(dataSchemaOf(descriptor.type, descriptor.version)).toBe(
        `urn:order-pipeline:${descriptor.type}:v1`,
      );
      expect(descriptor.schema.safeParse({}).success).toBe(false);
      expect(Object.isFrozen(descriptor)).toBe(true);
    }
  });

  it('allows a tombstone on the compacted stock changelog only', () => {
    expect(EventDescriptors.filter((d) => d.tombstone !== undefined).map((d) => d.type)).toEqual([
      'stock.changed',
    ]);
  });

  it('validates record keys', () => {
    expect(
      EventCatalogue['order.placed'].keySchema.safeParse('0b6f8a3e-5d4c-4f1a-9a2b-3c4d5e6f7a8b').success,
    ).toBe(true);
    expect(EventCatalogue['order.placed'].keySchema.safeParse('SKU-1').success).toBe(false);
    expect(EventCatalogue['stock.changed'].keySchema.safeParse('SKU-1').success).toBe(true);
    const key = ordersCountKey('customer|42', '2025-01-31T12:05:00.000Z');
    expect(key).toBe('customer|42|2025-01-31T12:05:00.000Z');
    expect(OrdersCountKeySchema.safeParse(key).success).toBe(true);
    expect(OrdersCountKeySchema.safeParse('customer-42').success).toBe(false);
  });
});

describe('isDeclaredFor / isEventType', () => {
  it('accepts a type only on its own topic', () => {
    expect(isDeclaredFor('orders', 'order.placed')).toBe(true);
    expect(isDeclaredFor('payments', 'order.placed')).toBe(false);
    expect(isDeclaredFor('order.dead-letter', 'order.placed')).toBe(false);
    expect(isDeclaredFor('orders', 'order.shipped')).toBe(false);
  });

  it('does not mistake inherited properties for event types', () => {
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(isEventType(name)).toBe(false);
      expect(parseEvent(name, {})).toEqual({ ok: false, reason: `undeclared event type "${name}"` });
    }
  });

  it('rejects an undeclared type without looking at the value', () => {
    expect(parseEvent('order.shipped', { orderId: 'x' })).toEqual({
      ok: false,
      reason: 'undeclared event type "order.shipped"',
    });
  });
});

describe('EventConsumers', () => {
  it('subscribes only to types declared for the topic, produced by another service', () => {
    for (const [service, subscriptions] of Object.entries(EventConsumers)) {
      for (const { topic, types } of subscriptions) {
        expect(types.length, `${service} ${topic}`).toBeGreaterThan(0);
        for (const type of types) {
          expect(isDeclaredFor(topic, type), `${service}: ${type} on ${topic}`).toBe(true);
          expect(EventCatalogue[type].producer).not.toBe(service);
        }
      }
    }
  });

  it('follows the saga of issue 4', () => {
    const consumersOf = (type: string) =>
      ServiceNames.filter((service) =>
        EventConsumers[service].some(({ types }) => types.some((t) => t === type)),
      );
    expect(consumersOf('order.placed')).toEqual(expect.arrayContaining(['payment', 'analytics']));
    expect(consumersOf('order.confirmed')).toEqual(expect.arrayContaining(['email', 'analytics']));
    expect(consumersOf('order.cancelled')).toEqual(expect.arrayContaining(['email', 'analytics']));
    expect(consumersOf('payment.authorized')).toEqual(expect.arrayContaining(['order', 'inventory']));
    expect(consumersOf('payment.declined')).toEqual(expect.arrayContaining(['order']));
    expect(consumersOf('stock.reserved')).toEqual(expect.arrayContaining(['order']));
    expect(consumersOf('stock.rejected')).toEqual(expect.arrayContaining(['order', 'payment']));
  });
});
