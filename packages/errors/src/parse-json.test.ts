import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { MalformedJsonError, ValidationError } from './fleet-error';
import { jsonDepthExceeds, safeParseJson } from './parse-json';

describe('jsonDepthExceeds', () => {
  it('counts nesting of arrays and objects, iteratively', () => {
    expect(jsonDepthExceeds(1, 0)).toBe(false);
    expect(jsonDepthExceeds({ a: 1 }, 1)).toBe(false);
    expect(jsonDepthExceeds({ a: [1] }, 1)).toBe(true);
    expect(jsonDepthExceeds([[{ b: [] }]], 4)).toBe(false);
    expect(jsonDepthExceeds([[{ b: [] }]], 3)).toBe(true);
    // Far deeper than any recursive walk could go.
    let deep: unknown = 1;
    for (let level = 0; level < 200_000; level += 1) deep = [deep];
    expect(jsonDepthExceeds(deep, 100)).toBe(true);
  });
});

describe('safeParseJson', () => {
  it('refuses JSON nested deeper than the limit as a validation error', () => {
    const text = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const parsed = safeParseJson({ text, schema: z.unknown(), subject: 'The body' });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(parsed.error).toBeInstanceOf(ValidationError);
    expect(parsed.error.message).toBe('The body nests arrays and objects deeper than 100 levels.');
    expect(safeParseJson({ text: '[[1]]', schema: z.unknown(), maxDepth: 2 }).success).toBe(true);
  });

  it('still reports malformed JSON as such', () => {
    const parsed = safeParseJson({ text: '{', schema: z.unknown() });
    expect(parsed.success ? undefined : parsed.error).toBeInstanceOf(MalformedJsonError);
  });
});
