import { describe, expect, it } from 'vitest';
import { DEMO_OUT_OF_STOCK_SKU, DEMO_STOCKED_SKUS } from '@pipeline/contracts';
import { Outcomes, pickOutcome, planOrder, seededRandom, type Outcome } from './order-mix';

const mix = { confirmed: 90, declined: 5, 'out-of-stock': 5 };

describe('order mix', () => {
  it('is reproducible from a seed', () => {
    const draw = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 50 }, () => pickOutcome(mix, random));
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it('follows the configured weights', () => {
    const random = seededRandom(7);
    const counts: Record<Outcome, number> = { confirmed: 0, declined: 0, 'out-of-stock': 0 };
    const n = 20_000;
    for (let i = 0; i < n; i++) counts[pickOutcome(mix, random)]++;
    expect(counts.confirmed / n).toBeCloseTo(0.9, 1);
    expect(counts.declined / n).toBeGreaterThan(0.04);
    expect(counts.declined / n).toBeLessThan(0.06);
    expect(counts['out-of-stock'] / n).toBeGreaterThan(0.04);
    expect(counts['out-of-stock'] / n).toBeLessThan(0.06);
  });

  it('never picks a zero-weight outcome', () => {
    const random = seededRandom(1);
    for (let i = 0; i < 1000; i++)
      expect(pickOutcome({ confirmed: 0, declined: 1, 'out-of-stock': 0 }, random)).toBe('declined');
  });

  it('builds orders that lead to the intended outcome', () => {
    const random = seededRandom(3);
    for (let sequence = 0; sequence < 300; sequence++) {
      const outcome = Outcomes[sequence % 3] as Outcome;
      const { body } = planOrder(outcome, { customers: 10, sequence, runId: 'run' }, random);
      const skus = body.items.map((item) => item.sku);
      const total = body.items.reduce((sum, item) => sum + item.quantity * Number(item.unitPrice), 0);
      expect(total).toBeLessThanOrEqual(10_000);
      expect(body.customerEmail).toBe(`run-${sequence}@loadgen.test`);
      expect(body.customerId.startsWith('blocked-')).toBe(outcome === 'declined');
      expect(skus.includes(DEMO_OUT_OF_STOCK_SKU)).toBe(outcome === 'out-of-stock');
      for (const sku of skus) expect([...DEMO_STOCKED_SKUS, DEMO_OUT_OF_STOCK_SKU]).toContain(sku);
    }
  });
});
