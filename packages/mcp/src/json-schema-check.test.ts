import { describe, expect, it } from '@jest/globals';
import { checkJsonSchema, createJsonSchemaChecker } from './json-schema-check';

const entitiesSchema = {
  type: 'object',
  properties: {
    entities: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, observations: { type: 'array' } },
        required: ['name'],
      },
    },
    limit: { type: 'integer', minimum: 1 },
  },
  required: ['entities'],
  additionalProperties: false,
};

describe('checkJsonSchema', () => {
  it('accepts a value that fits', () => {
    expect(checkJsonSchema(entitiesSchema, { entities: [{ name: 'a' }], limit: 2 })).toEqual({
      valid: true,
    });
  });

  it('names the missing, mistyped and unknown fields', () => {
    const missing = checkJsonSchema(entitiesSchema, { limit: 0 });
    expect(missing).toMatchObject({ valid: false, reason: 'mismatch' });
    if (missing.valid) throw new Error('expected a failure');
    expect(missing.fields).toEqual(expect.arrayContaining(['entities', 'limit']));
    expect(missing.message).toContain("must have required property 'entities'");
    expect(missing.message).toContain('limit: must be >= 1');

    const nested = checkJsonSchema(entitiesSchema, { entities: [{ name: 7 }], colour: 'red' });
    if (nested.valid) throw new Error('expected a failure');
    expect(nested.fields).toEqual(expect.arrayContaining(['entities[0].name', 'colour']));
    expect(nested.message).toContain('entities[0].name: must be string');
    expect(nested.message).toContain('unknown field(s): colour');
  });

  it('follows the dialect a schema declares (draft-07 here)', () => {
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { n: { type: 'number', exclusiveMinimum: 0 } },
    };
    expect(checkJsonSchema(draft7, { n: 1 }).valid).toBe(true);
    expect(checkJsonSchema(draft7, { n: 0 }).valid).toBe(false);
  });

  it('says when the schema itself cannot be used, and compiles each schema once', () => {
    const checker = createJsonSchemaChecker();
    const broken = { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } };
    const first = checker.check(broken, { a: 1 });
    expect(first).toMatchObject({ valid: false, reason: 'unusable-schema' });
    expect(checker.check(broken, { a: 1 })).toEqual(first);
  });
});
