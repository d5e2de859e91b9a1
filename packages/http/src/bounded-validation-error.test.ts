import { describe, expect, it } from '@jest/globals';
import { ValidationError } from '@fleet/errors';
import { z } from 'zod';
import { boundedArray } from './bounded-array';
import {
  boundedValidationError,
  MAX_ISSUE_MESSAGE_LENGTH,
  MAX_REPORTED_ISSUES,
} from './bounded-validation-error';

describe('boundedValidationError', () => {
  it('names the first three problems, counts the rest and says where checking stopped', () => {
    const schema = z.object({
      model: z.string({ error: 'model is required' }),
      messages: boundedArray(
        z.object({ role: z.literal('user', { error: 'role must be user' }) }),
        {
          error: 'messages must be an array',
        },
      ),
    });
    const error = boundedValidationError(
      schema.safeParse({ messages: new Array(1000).fill({ role: 'x' }) }).error as z.ZodError,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.param).toBe('model');
    expect(error.message).toBe(
      "The request body is invalid at 'model': model is required; at 'messages[0].role': role must be user; at 'messages[1].role': role must be user (and 3 more). Checking stopped at the first problems; 995 more items were not checked.",
    );
    expect(error.details).toEqual({
      issues: [
        { path: 'model', message: 'model is required' },
        ...[0, 1, 2, 3, 4].map((index) => ({
          path: `messages[${index}].role`,
          message: 'role must be user',
        })),
      ],
      uncheckedItems: 995,
    });
  });

  it('lists at most 20 problems, cutting long messages, and counts the others', () => {
    const shape = Object.fromEntries(
      Array.from({ length: 50 }, (_, index) => [`f${index}`, z.string()]),
    );
    const error = boundedValidationError(z.object(shape).safeParse({}).error as z.ZodError);
    expect(error.details?.['issues']).toHaveLength(MAX_REPORTED_ISSUES);
    expect(error.details?.['moreIssues']).toBe(30);
    expect(error.message).toContain('(and 47 more)');

    const keys = Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`k${index}`, 1]));
    const strict = boundedValidationError(z.strictObject({}).safeParse(keys).error as z.ZodError);
    expect(strict.message.length).toBeLessThan(MAX_ISSUE_MESSAGE_LENGTH + 100);
  });
});
