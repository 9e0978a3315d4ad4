import { describe, expect, it } from 'vitest';
import { terminalType } from './terminal-watcher';

describe('terminalType', () => {
  it('recognises the two terminal events from the raw header bytes', () => {
    expect(terminalType({ ce_type: Buffer.from('order.confirmed') })).toBe('order.confirmed');
    expect(terminalType({ ce_type: Buffer.from('order.cancelled') })).toBe('order.cancelled');
    expect(terminalType({ ce_type: [Buffer.from('order.cancelled')] })).toBe('order.cancelled');
    expect(terminalType({ ce_type: 'order.confirmed' })).toBe('order.confirmed');
  });

  it('ignores every other record', () => {
    expect(terminalType({ ce_type: Buffer.from('order.placed') })).toBeUndefined();
    expect(terminalType({ ce_type: Buffer.from('order.confirmedx') })).toBeUndefined();
    expect(terminalType({ other: Buffer.from('order.confirmed') })).toBeUndefined();
    expect(terminalType(undefined)).toBeUndefined();
  });
});
