import { describe, expect, it } from 'vitest';
import { PIPELINE_CONTRACTS } from '../events/read-event';
import { withoutTopicPrefix, withTopicPrefix } from './topic-prefix';

describe('withTopicPrefix', () => {
  it('checks declared types against the contract name behind the prefix', () => {
    const contracts = withTopicPrefix(PIPELINE_CONTRACTS, 'test.x1.');
    expect(contracts.isDeclaredFor('test.x1.orders', 'order.placed')).toBe(true);
    expect(contracts.isDeclaredFor('test.x1.orders', 'payment.authorized')).toBe(false);
  });

  it('is the identity without a prefix', () => {
    expect(withTopicPrefix(PIPELINE_CONTRACTS, '')).toBe(PIPELINE_CONTRACTS);
  });
});

describe('withoutTopicPrefix', () => {
  it('gives the contract name behind the prefix, and leaves other names alone', () => {
    expect(withoutTopicPrefix('test.x1.orders', 'test.x1.')).toBe('orders');
    expect(withoutTopicPrefix('orders', 'test.x1.')).toBe('orders');
    expect(withoutTopicPrefix('orders', '')).toBe('orders');
  });
});
