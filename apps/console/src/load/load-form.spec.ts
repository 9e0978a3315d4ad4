import { describe, expect, it } from 'vitest';
import { loadConsoleConfig } from '../config';
import { loadConfigOf, parseLoadForm } from './load-form';

const statusOf = (body: unknown): { status: unknown; message: string } => {
  try {
    parseLoadForm(body);
  } catch (error) {
    return { status: (error as { statusCode?: unknown }).statusCode, message: (error as Error).message };
  }
  throw new Error('the form was accepted');
};

describe('the Load form', () => {
  it('reads a rate, a duration, a mix and a trace ratio into an open-model run', () => {
    const form = parseLoadForm({ rate: '5', duration: '3', mix: 'confirmed=1,declined=1', traceRatio: '0' });
    const config = loadConfigOf(form, loadConsoleConfig({ KAFKA_TOPIC_PREFIX: 'p.' }));
    expect(config.model).toEqual({ kind: 'open', rate: 5, durationSeconds: 3 });
    expect(config.mix).toEqual({ confirmed: 1, declined: 1, 'out-of-stock': 0 });
    expect(config.traceRatio).toBe(0);
    expect(config.topicPrefix).toBe('p.');
    expect(config.baseUrl).toBe('http://127.0.0.1:3000');
    expect(Object.keys(config.groups)).toContain('order-service');
  });

  it('turns ramp steps into loadgen’s stepped model, replacing rate and duration', () => {
    const form = parseLoadForm({ rate: '5', duration: '3', steps: '2, 4,8', stepSeconds: '5', mix: '' });
    expect(loadConfigOf(form, loadConsoleConfig({})).model).toEqual({
      kind: 'stepped',
      steps: [2, 4, 8],
      stepSeconds: 5,
    });
    expect(form.mix).toEqual({ confirmed: 90, declined: 5, 'out-of-stock': 5 });
  });

  it('answers 400 naming each invalid field', () => {
    const refused = statusOf({ rate: 'fast' });
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/^invalid load run: rate: /);
    expect(statusOf({ mix: 'confirmed=90,lost=10' }).message).toMatch(/mix: "lost=10" is not/);
    expect(statusOf({ steps: '5,x' }).message).toMatch(/steps: must be rates separated by commas/);
    expect(statusOf({ traceRatio: '2' }).message).toMatch(/traceRatio: /);
    expect(statusOf({ duration: '0', rate: '100000' }).message).toMatch(/rate: .*; duration: /);
    expect(statusOf({ steps: '5,5,5,5,5,5,5', stepSeconds: '600' }).message).toMatch(
      /steps: at most 3600 s in all/,
    );
    expect(statusOf({ rate: '1000', duration: '3600' }).message).toMatch(/duration: at most 360000 orders/);
  });
});

describe('the lag a run samples', () => {
  it('is that of the groups the flow page draws, over the topics each consumes', () => {
    const config = loadConsoleConfig({ PAYMENT_SERVICE_GROUP: 'payments-blue' });
    const { groups } = loadConfigOf(parseLoadForm({ rate: '5', duration: '3' }), config);
    expect(groups['payments-blue']).toEqual(['orders', 'inventory']);
    expect(groups['order-service']).toEqual(['payments', 'inventory']);
    expect(Object.keys(groups)).toHaveLength(5);
  });
});
