import type { Admin, Kafka } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { Watermarks } from './watermarks';

/** A Kafka whose admins read watermarks of the topics in `known` and fail on any other. */
function fakeKafka(known: readonly string[]) {
  const made: { disconnected: boolean }[] = [];
  const kafka = {
    admin: () => {
      const state = { disconnected: false };
      made.push(state);
      return {
        connect: () => Promise.resolve(),
        disconnect: () => {
          state.disconnected = true;
          return Promise.resolve();
        },
        fetchTopicOffsets: (topic: string) =>
          known.includes(topic)
            ? Promise.resolve([{ partition: 0, offset: '7', high: '7', low: '0' }])
            : Promise.reject(new Error('This server does not host this topic-partition')),
      } as unknown as Admin;
    },
  } as unknown as Kafka;
  return { kafka, made };
}

describe('Watermarks', () => {
  it('reads the high watermarks through one admin of its own, kept while it works', async () => {
    const { kafka, made } = fakeKafka(['a', 'b']);
    const watermarks = new Watermarks(kafka);
    expect((await watermarks.highs(['a', 'b'])).get('b')?.get(0)).toBe('7');
    await watermarks.highs(['a']);
    expect(made).toHaveLength(1);
    await watermarks.close();
    expect(made[0]?.disconnected).toBe(true);
  });

  it('leaves out a topic it cannot read and starts afresh with a new admin next time', async () => {
    const { kafka, made } = fakeKafka(['a']);
    const watermarks = new Watermarks(kafka);
    const highs = await watermarks.highs(['a', 'deleted']);
    expect(highs.get('a')?.get(0)).toBe('7');
    expect(highs.get('deleted')?.size ?? 0).toBe(0);
    expect(made[0]?.disconnected).toBe(true);
    await watermarks.highs(['a']);
    expect(made).toHaveLength(2);
    await watermarks.close();
  });
});
