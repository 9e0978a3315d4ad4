import { describe, expect, it } from 'vitest';
import { classifyGroup, groupRules, isEmptyGroup, matchesFilter, orderGroups } from './group-order';

const ids = (groups: readonly { groupId: string }[]) => groups.map((g) => g.groupId);
const group = (groupId: string) => ({ groupId });

describe('classifyGroup', () => {
  const plain = groupRules('', 'console');

  it('knows the five services’ groups by the name their consumers default to', () => {
    for (const id of [
      'order-service',
      'payment-service',
      'inventory-service',
      'email-service',
      'analytics-service',
    ])
      expect(classifyGroup(id, plain)).toBe('pipeline');
    expect(classifyGroup('payment-service-old', plain)).toBe('other');
  });

  it('with a topic prefix, takes the prefixed groups (bench, loadgen) and the plain ones', () => {
    const prefixed = groupRules('bench-1.', 'bench-1.console');
    expect(classifyGroup('bench-1.payment-service', prefixed)).toBe('pipeline');
    expect(classifyGroup('payment-service', prefixed)).toBe('pipeline');
    expect(classifyGroup('bench-2.payment-service', prefixed)).toBe('other');
  });

  it('takes the groups the flow page draws (<SERVICE>_SERVICE_GROUP) as the pipeline’s too', () => {
    const custom = groupRules('', 'console', { payment: 'payments-blue' });
    expect(classifyGroup('payments-blue', custom)).toBe('pipeline');
    expect(classifyGroup('payment-service', custom)).toBe('pipeline');
    expect(
      orderGroups([group('payments-blue'), group('order-service')], custom).pipeline.map((g) => g.groupId),
    ).toEqual(['order-service', 'payments-blue']);
  });

  it('counts the console’s group and what its load runs and experiments create as the console’s', () => {
    expect(classifyGroup('console', plain)).toBe('console');
    expect(classifyGroup('console.load-watcher.1a2b', plain)).toBe('console');
    expect(classifyGroup('lab.rebalance.members', plain)).toBe('console');
    expect(classifyGroup('my-console', plain)).toBe('other');
    expect(classifyGroup('laboratory', plain)).toBe('other');
  });
});

describe('orderGroups', () => {
  it('puts the pipeline’s groups first in pipeline order, then the console’s, then the rest by name', () => {
    const ordered = orderGroups(
      [
        'zeta',
        'analytics-service',
        'aaa-leftover-1',
        'console',
        'order-service',
        'lab.dlt',
        'payment-service',
      ].map(group),
      groupRules('', 'console'),
    );
    expect(ids(ordered.pipeline)).toEqual(['order-service', 'payment-service', 'analytics-service']);
    expect(ids(ordered.console)).toEqual(['console', 'lab.dlt']);
    expect(ids(ordered.other)).toEqual(['aaa-leftover-1', 'zeta']);
  });

  it('lists a service’s prefixed group before its plain one', () => {
    const ordered = orderGroups(
      ['payment-service', 'p.order-service', 'p.payment-service'].map(group),
      groupRules('p.', 'console'),
    );
    expect(ids(ordered.pipeline)).toEqual(['p.order-service', 'p.payment-service', 'payment-service']);
  });
});

describe('isEmptyGroup', () => {
  it('is a group Kafka keeps for its offsets while nobody is in it', () => {
    expect(isEmptyGroup({ state: 'Empty', members: [] })).toBe(true);
    expect(isEmptyGroup({ state: 'Stable', members: [{}] })).toBe(false);
    expect(isEmptyGroup({ state: 'PreparingRebalance', members: [] })).toBe(false);
  });
});

describe('matchesFilter', () => {
  it('is a case-insensitive substring; an empty filter keeps everything', () => {
    expect(matchesFilter('Payment-Service', 'payment')).toBe(true);
    expect(matchesFilter('order-service', 'pay')).toBe(false);
    expect(matchesFilter('order-service', '')).toBe(true);
  });
});
