import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { withCachedJsonSchema } from './cached-json-schema';

const schema = z.strictObject({
  query: z.string().min(1, 'query must not be empty'),
  limit: z.number().int().max(20).default(5),
});

describe('withCachedJsonSchema', () => {
  it('validates exactly as the original schema does', () => {
    const cached = withCachedJsonSchema(schema);
    for (const value of [{ query: 'x' }, { query: '' }, { query: 'x', limit: 50 }, { other: 1 }]) {
      const original = schema.safeParse(value);
      const copy = cached.safeParse(value);
      expect(copy.success).toBe(original.success);
      expect(copy.error?.issues).toEqual(original.error?.issues);
      expect(copy.data).toEqual(original.data);
    }
  });

  it('converts once per direction and options, the same JSON Schema as zod gives', () => {
    const cached = withCachedJsonSchema(schema);
    const { jsonSchema } = cached['~standard'];
    const first = jsonSchema.input({ target: 'draft-2020-12' });
    expect(jsonSchema.input({ target: 'draft-2020-12' })).toBe(first);
    expect(first).toEqual(schema['~standard'].jsonSchema.input({ target: 'draft-2020-12' }));
    const output = jsonSchema.output({ target: 'draft-2020-12' });
    expect(output).not.toBe(first);
    expect(output).toEqual(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }));
    expect(jsonSchema.input({ target: 'draft-07' })).not.toBe(first);
  });

  it('hands out a frozen JSON Schema, so no caller can change what the next one gets', () => {
    const json = withCachedJsonSchema(schema)['~standard'].jsonSchema.input({
      target: 'draft-2020-12',
    });
    expect(Object.isFrozen(json)).toBe(true);
    expect(Object.isFrozen(json['properties'])).toBe(true);
  });

  it('leaves the original schema as it was', () => {
    withCachedJsonSchema(schema);
    const { jsonSchema } = schema['~standard'];
    expect(jsonSchema.input({ target: 'draft-2020-12' })).not.toBe(
      jsonSchema.input({ target: 'draft-2020-12' }),
    );
  });
});
