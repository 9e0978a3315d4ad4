import type { Sql } from '@pipeline/database';
import { describe, expect, it, vi } from 'vitest';
import { SentEmailLog, type SentEmailRow } from './sent-email-log';

const row = (n: number): SentEmailRow => ({
  eventId: `00000000-0000-4000-8000-00000000000${n}`,
  orderId: `10000000-0000-4000-8000-00000000000${n}`,
  kind: 'CONFIRMATION',
  recipient: `c${n}@example.com`,
  messageId: `<m${n}@pipeline.local>`,
});

function fakeSql(execute: Sql['execute']): Sql {
  return { query: () => Promise.resolve([]), execute };
}

describe('SentEmailLog', () => {
  it('writes the first send at once and the sends that complete meanwhile together, in one statement', async () => {
    let release: () => void = () => undefined;
    const execute = vi
      .fn<Sql['execute']>()
      .mockImplementationOnce(() => new Promise<number>((resolve) => (release = () => resolve(1))))
      .mockResolvedValue(3);
    const log = new SentEmailLog(fakeSql(execute));

    const first = log.record(row(1));
    const others = [log.record(row(2)), log.record(row(3)), log.record(row(4))];
    expect(execute).toHaveBeenCalledTimes(1);
    release();
    await Promise.all([first, ...others]);

    expect(execute).toHaveBeenCalledTimes(2);
    const [, values] = execute.mock.calls[1]!;
    expect(values?.[0]).toEqual([row(2).eventId, row(3).eventId, row(4).eventId]);
    expect(values?.[4]).toEqual([row(2).messageId, row(3).messageId, row(4).messageId]);
  });

  it('fails the callers of a write that failed, and writes the next ones afresh', async () => {
    const execute = vi
      .fn<Sql['execute']>()
      .mockRejectedValueOnce(new Error('connection terminated'))
      .mockResolvedValue(1);
    const log = new SentEmailLog(fakeSql(execute));

    await expect(log.record(row(1))).rejects.toThrow('connection terminated');
    await expect(log.record(row(2))).resolves.toBeUndefined();
    expect(execute.mock.calls[1]![1]?.[0]).toEqual([row(2).eventId]);
  });
});
