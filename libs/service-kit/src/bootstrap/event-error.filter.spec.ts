import { type ArgumentsHost, BadRequestException } from '@nestjs/common';
import type { AbstractHttpAdapter } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { EventErrorFilter } from './event-error.filter';

/** An HTTP host and an adapter that records what the filter answered. */
function httpCall() {
  const answer: { status?: number; body?: unknown; headers: Record<string, string> } = { headers: {} };
  const response = { setHeader: (name: string, value: string) => (answer.headers[name] = value) };
  const adapter = {
    isHeadersSent: () => false,
    reply: (_response: unknown, body: unknown, status: number) => Object.assign(answer, { body, status }),
    end: () => undefined,
  } as unknown as AbstractHttpAdapter;
  const host = {
    getType: () => 'http',
    getArgByIndex: (index: number) => (index === 1 ? response : {}),
    switchToHttp: () => ({ getResponse: () => response, getRequest: () => ({}) }),
  } as unknown as ArgumentsHost;
  return { filter: new EventErrorFilter(adapter), host, answer };
}

describe('EventErrorFilter over HTTP', () => {
  it('answers 503 with Retry-After when no pooled connection frees up in time (Prisma P2028)', () => {
    const { filter, host, answer } = httpCall();
    const timeout = Object.assign(
      new Error('Transaction API error: Unable to start a transaction in the given time.'),
      {
        name: 'PrismaClientKnownRequestError',
        code: 'P2028',
      },
    );
    filter.catch(timeout, host);
    expect(answer.status).toBe(503);
    expect(answer.headers['Retry-After']).toBe('1');
    expect(JSON.stringify(answer.body)).toContain('retry');
  });

  it('answers 503 when the database cannot be reached', () => {
    const { filter, host, answer } = httpCall();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      name: 'PrismaClientKnownRequestError',
      code: 'ECONNREFUSED',
    });
    filter.catch(refused, host);
    expect(answer.status).toBe(503);
  });

  it("leaves the client's errors and real bugs to Nest: 400 stays 400, a TypeError is 500", () => {
    const bad = httpCall();
    bad.filter.catch(new BadRequestException('customerId is required'), bad.host);
    expect(bad.answer.status).toBe(400);
    expect(bad.answer.headers).toEqual({});
    const bug = httpCall();
    bug.filter.catch(new TypeError('x is undefined'), bug.host);
    expect(bug.answer.status).toBe(500);
  });
});
