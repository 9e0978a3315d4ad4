import { describe, expect, it } from 'vitest';
import { TopicCatalogue } from './topic-catalogue';

describe('TopicCatalogue', () => {
  const byName = new Map(TopicCatalogue.map((spec) => [spec.name, spec]));

  it('declares the saga topics, the changelogs and one dead-letter topic per service', () => {
    // The contract's topics; a fork's generated services add theirs.
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining([
        'orders',
        'payments',
        'inventory',
        'inventory.stock',
        'orders-count',
        'order.dead-letter',
        'payment.dead-letter',
        'inventory.dead-letter',
        'email.dead-letter',
        'analytics.dead-letter',
      ]),
    );
  });

  it('compacts exactly the changelog topics', () => {
    const compacted = TopicCatalogue.filter((spec) => spec.cleanupPolicy === 'compact').map(
      (spec) => spec.name,
    );
    expect(compacted.sort()).toEqual(['inventory.stock', 'orders-count']);
  });

  it('keys the saga topics by order id', () => {
    for (const name of ['orders', 'payments', 'inventory']) expect(byName.get(name)?.key).toBe('order id');
  });
});
