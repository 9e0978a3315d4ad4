/**
 * Guards patches/kafkajs+2.2.4.patch. kafkajs 2.2.4's RequestQueue kept two timers going on every
 * broker connection, idle or not:
 * - it re-armed a negative (so 1 ms) timer after every check even when nothing was pending, a
 *   busy loop (kafkajs #1556, #1704, #1751). The patched queue arms it only while requests wait,
 *   and still sends them once the throttle ends or an in-flight slot frees;
 * - it checked for timed-out requests every 100 ms from connect to close. The patched queue runs
 *   that check only while a request is in flight, once a second (a 30 s request timeout is
 *   enforced at most a second late), and still times out a request that gets no answer.
 *
 * Drives kafkajs's internal RequestQueue directly, with fake timers: no broker needed.
 */
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

interface PushedRequest {
  readonly entry: {
    readonly correlationId: number;
    readonly apiKey: number;
    readonly apiName: string;
    readonly apiVersion: number;
    readonly resolve: (response: unknown) => void;
    readonly reject: (error: unknown) => void;
  };
  readonly expectResponse: boolean;
  readonly sendRequest: () => void;
}

interface RequestQueue {
  push(request: PushedRequest): void;
  scheduleRequestTimeoutCheck(): void;
  maybeThrottle(clientSideThrottleTimeMs: number | null): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  destroy(): void;
}

type RequestQueueConstructor = new (options: {
  maxInFlightRequests: number | null;
  requestTimeout: number;
  enforceRequestTimeout: boolean;
  isConnected?: () => boolean;
  clientId: string;
  broker: string;
  logger: Record<'debug' | 'info' | 'warn' | 'error', () => void>;
}) => RequestQueue;

// Not part of kafkajs's public API: the patch changes exactly this module.
const RequestQueue = createRequire(__filename)('kafkajs/src/network/requestQueue') as RequestQueueConstructor;

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function newQueue(maxInFlightRequests: number | null = null, enforceRequestTimeout = false): RequestQueue {
  return new RequestQueue({
    maxInFlightRequests,
    requestTimeout: 5_000,
    enforceRequestTimeout,
    isConnected: () => true,
    clientId: 'request-queue-spec',
    broker: '127.0.0.1:9092',
    logger: silent,
  });
}

/** A request whose `sent` flag tells whether the queue handed it to the socket. */
function request(correlationId: number): PushedRequest & { sent: boolean; rejected?: unknown } {
  const pushed: PushedRequest & { sent: boolean; rejected?: unknown } = {
    sent: false,
    entry: {
      correlationId,
      apiKey: 1,
      apiName: 'Fetch',
      apiVersion: 11,
      resolve: () => {},
      reject: (error: unknown) => {
        pushed.rejected = error;
      },
    },
    expectResponse: true,
    sendRequest: () => {
      pushed.sent = true;
    },
  };
  return pushed;
}

const fulfil = (queue: RequestQueue, correlationId: number): void =>
  queue.fulfillRequest({ correlationId, payload: Buffer.alloc(0), size: 0 });

describe('kafkajs RequestQueue (patched)', () => {
  let queue: RequestQueue;

  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    queue.destroy();
    vi.useRealTimers();
  });

  it('arms no timer once a request is answered and nothing is pending', () => {
    queue = newQueue();
    const first = request(1);
    queue.push(first);
    expect(first.sent).toBe(true);

    fulfil(queue, 1);

    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sends a throttled request when the throttle ends, with a positive delay, then idles', () => {
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    queue = newQueue();
    queue.maybeThrottle(50);
    const throttled = request(1);

    queue.push(throttled);
    expect(throttled.sent).toBe(false);
    expect(vi.getTimerCount()).toBe(1);

    vi.advanceTimersByTime(49);
    expect(throttled.sent).toBe(false);
    vi.advanceTimersByTime(1);
    expect(throttled.sent).toBe(true);

    fulfil(queue, 1);
    vi.advanceTimersByTime(1_000);
    expect(vi.getTimerCount()).toBe(0);
    const delaysMs = setTimeoutSpy.mock.calls.map(([, delayMs]) => delayMs);
    expect(delaysMs).toEqual([50]);
  });

  it('sends a request that waited for an in-flight slot, then idles', () => {
    queue = newQueue(1);
    const first = request(1);
    const second = request(2);
    queue.push(first);
    queue.push(second);
    expect(second.sent).toBe(false);

    fulfil(queue, 1);
    expect(second.sent).toBe(true);

    fulfil(queue, 2);
    vi.advanceTimersByTime(1_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  describe('request timeouts (enforceRequestTimeout)', () => {
    it('runs no timeout check on a connected queue with nothing in flight', () => {
      queue = newQueue(null, true);
      queue.scheduleRequestTimeoutCheck();
      expect(vi.getTimerCount()).toBe(0);
    });

    it('checks while a request is in flight, and stops once it is answered', () => {
      queue = newQueue(null, true);
      queue.scheduleRequestTimeoutCheck();
      const first = request(1);
      queue.push(first);
      expect(vi.getTimerCount()).toBe(1);

      fulfil(queue, 1);
      vi.advanceTimersByTime(1_000);
      expect(vi.getTimerCount()).toBe(0);
      expect(first.rejected).toBeUndefined();
    });

    it('still times out a request that gets no answer, at most a second late', () => {
      queue = newQueue(null, true);
      queue.scheduleRequestTimeoutCheck();
      const unanswered = request(1);
      queue.push(unanswered);

      vi.advanceTimersByTime(5_000);
      expect(unanswered.rejected).toBeUndefined();
      vi.advanceTimersByTime(1_000);
      expect(unanswered.rejected).toBeInstanceOf(Error);
      expect((unanswered.rejected as Error).name).toBe('KafkaJSRequestTimeoutError');
      vi.advanceTimersByTime(1_000);
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});
