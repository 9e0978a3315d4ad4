import { BadRequestException } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ZodValidationPipe } from './zod-validation.pipe';

const pipe = new ZodValidationPipe(
  z.strictObject({ name: z.string().min(1), items: z.array(z.strictObject({ qty: z.int().min(1) })) }),
  'body',
);

describe('ZodValidationPipe', () => {
  it('returns the parsed value', () => {
    expect(pipe.transform({ name: 'a', items: [{ qty: 1 }] })).toEqual({ name: 'a', items: [{ qty: 1 }] });
  });

  it('rejects with a 400 naming every offending field', () => {
    let caught: unknown;
    try {
      pipe.transform({ name: '', items: [{ qty: 0 }, { qty: 2, extra: true }] });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(BadRequestException);
    const body = (caught as BadRequestException).getResponse() as {
      issues: { field: string }[];
      message: string;
    };
    expect(body.issues.map((issue) => issue.field).sort()).toEqual(['items.0.qty', 'items.1.extra', 'name']);
    expect(body.message).toMatch(/^invalid body: /);
  });

  it('names the root when the value is not an object at all', () => {
    expect(() => pipe.transform('nope')).toThrow(/\(root\)/);
  });
});
