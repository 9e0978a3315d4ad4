import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { TerminalWatcher, terminalType } from './terminal-watcher';

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

describe('TerminalWatcher.start', () => {
  // No broker listens on port 1: every connect fails at once.
  const unreachable = () =>
    new Kafka({
      brokers: ['127.0.0.1:1'],
      clientId: 'terminal-watcher-spec',
      connectionTimeout: 200,
      retry: { retries: 0 },
      logLevel: logLevel.NOTHING,
    });

  it('rejects when it cannot connect, and its join timer rejects nothing later', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const watcher = new TerminalWatcher(unreachable(), '', () => undefined, 'watcher-spec');
      await expect(watcher.start(100)).rejects.toThrow();
      // Past the join timeout: an armed timer would have rejected by now.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});
