import { BadRequestException, type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';

export interface FieldIssue {
  /** Dotted path into the input, e.g. `items.0.quantity`; `(root)` for the whole value. */
  readonly field: string;
  readonly message: string;
}

const fieldOf = (path: readonly PropertyKey[]): string =>
  path.length > 0 ? path.map(String).join('.') : '(root)';

export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.flatMap((issue) =>
    // An unknown field is reported on its parent; name each unknown field itself instead.
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ field: fieldOf([...issue.path, key]), message: 'unknown field' }))
      : [{ field: fieldOf(issue.path), message: issue.message }],
  );
}

/**
 * Validates a request body, query or param against a zod schema at the HTTP edge. A failure is
 * a 400 that names every offending field: `{ statusCode, error, message, issues: [{ field, message }] }`.
 */
export class ZodValidationPipe<Schema extends z.ZodType> implements PipeTransform<unknown, z.output<Schema>> {
  constructor(
    private readonly schema: Schema,
    private readonly what = 'request',
  ) {}

  transform(value: unknown): z.output<Schema> {
    const result = this.schema.safeParse(value);
    if (result.success) return result.data;
    const issues = fieldIssues(result.error);
    throw new BadRequestException({
      statusCode: 400,
      error: 'Bad Request',
      message: `invalid ${this.what}: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}`,
      issues,
    });
  }
}
