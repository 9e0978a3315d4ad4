import { describe, expect, it } from 'vitest';
import { deadLettersExperiment, type Evidence } from '@pipeline/experiments';
import { leftovers, localContext } from './local-context';

const table = (evidence: readonly Evidence[], caption: string) => {
  const found = evidence.find((e) => e.kind === 'table' && e.caption.startsWith(caption));
  if (found?.kind !== 'table') throw new Error(`no table "${caption}"`);
  return found;
};

describe('the dead-letters experiment, against the real broker', () => {
  it('dead-letters after 3 attempts with the diagnostic headers, moves on, logs WARN, and replays', async () => {
    const context = localContext('dead-letters');
    const verdict = await deadLettersExperiment.run(context);

    expect(verdict.summary).toContain('3 attempts');
    expect(verdict.passed).toBe(true);
    const attempts = table(verdict.evidence, 'Attempts');
    expect(attempts.rows.map((row) => [row[0], row[1], row[3]])).toEqual([
      ['0', '1', 'retriable'],
      ['0', '2', 'retriable'],
      ['0', '3', 'retriable'],
    ]);
    const headers = new Map(table(verdict.evidence, 'Headers').rows.map(([name, value]) => [name, value]));
    expect(headers.get('original_topic')).toBe(`${context.namePrefix}orders`);
    expect(headers.get('original_partition')).toBe('0');
    expect(headers.get('original_offset')).toBe('0');
    expect(headers.get('error')).toContain('price list has no entry for SKU MUG-CRACKED');
    expect(headers.get('error_class')).toBe('retriable');
    expect(headers.get('attempts')).toBe('3');
    expect(headers.get('consumer_group')).toBe(`${context.namePrefix}handler`);
    const warn = verdict.evidence.find((e) => e.kind === 'log');
    expect(warn?.kind === 'log' && warn.lines.length).toBe(1);
    const line = JSON.parse(warn?.kind === 'log' ? (warn.lines[0] ?? '') : '') as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'warn', context: 'KafkaEventServer', event_type: 'order.placed' });
    expect(String(line.msg)).toContain(`dead letter ${context.namePrefix}orders.dead-letter/0@0`);
    const offsets = verdict.evidence.find((e) => e.kind === 'values');
    expect(offsets?.kind === 'values' && Object.fromEntries(offsets.entries)).toMatchObject({
      'committed after the dead letter': '2',
      replayed_from: `${context.namePrefix}orders.dead-letter/0/0`,
    });
    expect(context.steps.some((step) => step.text.includes('fixed handler processed offset 2'))).toBe(true);
    expect(await leftovers(context.kafka, context.namePrefix)).toEqual([]);
  });

  it('stops when aborted and still removes its topics and group', async () => {
    const context = localContext('dead-letters');
    const run = deadLettersExperiment.run(context);
    // Stopped during the retries of the poison record.
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (context.steps.some((step) => step.text.startsWith('Attempt 1'))) resolve(clearInterval(timer));
      }, 20);
    });
    context.abort.abort();
    await expect(run).rejects.toThrow();
    expect(await leftovers(context.kafka, context.namePrefix)).toEqual([]);
  });
});
