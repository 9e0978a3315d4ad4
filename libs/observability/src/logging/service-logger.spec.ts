import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { StackContextManager } from '@opentelemetry/sdk-trace';
import type { LogLevel } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLogContext } from './log-context';
import { formatPretty } from './pretty-destination';
import { createServiceLogger } from './service-logger';

function capture(level: LogLevel = 'verbose', json = true) {
  const lines: string[] = [];
  const logger = createServiceLogger({
    service: 'test-service',
    level,
    json,
    destination: { write: (line: string) => void lines.push(line) },
  });
  const entries = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines, entries };
}

describe('createServiceLogger', () => {
  it('writes one JSON line with level label, time, service, context and msg', () => {
    const { logger, entries } = capture();
    logger.log('listening', 'Bootstrap');
    const [entry] = entries();
    expect(entry).toMatchObject({
      level: 'info',
      service: 'test-service',
      context: 'Bootstrap',
      msg: 'listening',
    });
    expect(new Date(String(entry?.time)).toISOString()).toBe(entry?.time);
  });

  it("honours Nest's error(message, stack?, context?) convention", () => {
    const { logger, entries } = capture();
    const stack = new Error('boom').stack;
    logger.error('failed', stack, 'Consumer');
    logger.error('no stack', undefined, 'Consumer'); // what Nest's Logger passes without a stack
    logger.error('stack only', stack);
    logger.error('context only', 'Relay');
    const [withStack, noStack, stackOnly, contextOnly] = entries();
    expect(withStack).toMatchObject({ level: 'error', msg: 'failed', context: 'Consumer', stack });
    expect(noStack).toMatchObject({ msg: 'no stack', context: 'Consumer' });
    expect(noStack).not.toHaveProperty('stack');
    expect(stackOnly).toMatchObject({ msg: 'stack only', stack });
    expect(stackOnly).not.toHaveProperty('context');
    expect(contextOnly).toMatchObject({ msg: 'context only', context: 'Relay' });
  });

  it('merges an object message into the line and serialises an Error', () => {
    const { logger, entries } = capture();
    logger.warn({ msg: 'slow batch', topic: 'orders', events: 3 }, 'Relay');
    logger.error(new Error('broken'), undefined, 'Consumer');
    logger.fatal('start-up failed: nope', new Error('x').stack, 'Bootstrap');
    const [object, error, fatal] = entries();
    expect(object).toMatchObject({
      level: 'warn',
      msg: 'slow batch',
      topic: 'orders',
      events: 3,
      context: 'Relay',
    });
    expect(error).toMatchObject({ msg: 'broken', err: { type: 'Error', message: 'broken' } });
    expect(fatal).toMatchObject({ level: 'fatal', msg: 'start-up failed: nope', context: 'Bootstrap' });
    expect(fatal?.stack).toEqual(expect.stringContaining('Error: x'));
  });

  it('filters by the Nest level: log hides debug and verbose, verbose shows trace', () => {
    const info = capture('log');
    info.logger.debug('hidden', 'X');
    info.logger.verbose('hidden', 'X');
    info.logger.warn('shown', 'X');
    expect(info.entries().map((entry) => entry.msg)).toEqual(['shown']);

    const all = capture('verbose');
    all.logger.verbose('very detailed', 'X');
    expect(all.entries()).toEqual([expect.objectContaining({ level: 'trace', msg: 'very detailed' })]);

    const errorsOnly = capture('error');
    errorsOnly.logger.warn('hidden', 'X');
    errorsOnly.logger.error('shown', undefined, 'X');
    errorsOnly.logger.setLogLevels(['fatal', 'error', 'warn']);
    errorsOnly.logger.warn('now shown', 'X');
    expect(errorsOnly.entries().map((entry) => entry.msg)).toEqual(['shown', 'now shown']);
  });

  it('redacts credentials, connection strings and email bodies', () => {
    const { logger, lines, entries } = capture();
    logger.log(
      {
        msg: 'config',
        password: 'hunter2',
        DATABASE_URL: 'postgresql://app:s3cret@db/order_service',
        mail: {
          to: 'a@example.com',
          subject: 'Order confirmed',
          html: '<p>secret body</p>',
          text: 'secret body',
        },
        headers: { authorization: 'Bearer abc' },
      },
      'Config',
    );
    logger.warn('connecting to smtp://mailer:t0psecret@mail:587 failed', 'Mail');
    const [config, message] = entries();
    expect(config).toMatchObject({
      password: '[redacted]',
      DATABASE_URL: '[redacted]',
      mail: { subject: 'Order confirmed', html: '[redacted]', text: '[redacted]' },
      headers: { authorization: '[redacted]' },
    });
    expect(message?.msg).toBe('connecting to smtp://mailer:[redacted]@mail:587 failed');
    expect(lines.join('')).not.toMatch(/hunter2|s3cret|secret body|Bearer abc|t0psecret/);
  });

  describe('inside a trace and an event', () => {
    const manager = new StackContextManager();
    beforeAll(() => {
      context.setGlobalContextManager(manager.enable());
    });
    afterAll(() => {
      context.disable();
    });

    it('adds trace_id and span_id of the active span, and the event fields of the log context', () => {
      const { logger, entries } = capture();
      const spanContext = {
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        traceFlags: TraceFlags.SAMPLED,
      };
      const traced = trace.setSpanContext(ROOT_CONTEXT, spanContext);
      context.with(traced, () => {
        withLogContext({ event_id: 'e-1', event_type: 'order.placed', order_id: 'o-1' }, () => {
          logger.log('handled', 'Consumer');
        });
      });
      logger.log('outside', 'Consumer');
      const [inside, outside] = entries();
      expect(inside).toMatchObject({
        trace_id: spanContext.traceId,
        span_id: spanContext.spanId,
        event_id: 'e-1',
        event_type: 'order.placed',
        order_id: 'o-1',
      });
      expect(outside).not.toHaveProperty('trace_id');
      expect(outside).not.toHaveProperty('event_id');
    });
  });

  describe('LOG_FORMAT=pretty', () => {
    it('writes one readable line: time, level, service, context, message, then key=value', () => {
      const { logger, lines } = capture('log', false);
      logger.log({ msg: 'sent', order_id: 'o-1' }, 'Mail');
      expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}\[test-service\] Mail: sent order_id=o-1\n$/);
    });

    it('puts a stack trace on the following lines and passes non-JSON through', () => {
      const line = JSON.stringify({
        level: 'error',
        service: 's',
        msg: 'm',
        stack: 'Error: x\n    at f (a.js:1:1)',
      });
      expect(formatPretty(line)).toBe('ERROR [s] m\nError: x\n    at f (a.js:1:1)\n');
      expect(formatPretty('not json\n')).toBe('not json\n');
    });
  });
});
