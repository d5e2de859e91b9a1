import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { toStrictJsonSchema } from './to-strict-json-schema';

const noteSchema = z.object({
  title: z.string().min(1),
  body: z.string().optional(),
  tags: z.array(z.string()).default([]),
  kind: z.enum(['a', 'b']).optional(),
  author: z.object({ name: z.string(), email: z.email().optional() }).optional(),
  score: z.number().min(0).max(1).nullable(),
});

describe('toStrictJsonSchema', () => {
  it('closes every object and lists every property as required', () => {
    const { jsonSchema } = toStrictJsonSchema(noteSchema);
    expect(jsonSchema['$schema']).toBeUndefined();
    expect(jsonSchema['additionalProperties']).toBe(false);
    expect(jsonSchema['required']).toEqual(['title', 'body', 'tags', 'kind', 'author', 'score']);
    const properties = jsonSchema['properties'] as Record<string, Record<string, unknown>>;
    const author = properties['author']!;
    // The optional nested object becomes nullable, and is closed itself.
    expect(author['anyOf']).toEqual([
      {
        type: 'object',
        properties: {
          name: { type: 'string' },
          email: { type: ['string', 'null'], format: 'email', pattern: expect.any(String) },
        },
        required: ['name', 'email'],
        additionalProperties: false,
      },
      { type: 'null' },
    ]);
  });

  it('makes optional and defaulted fields nullable, and leaves required ones alone', () => {
    const { jsonSchema } = toStrictJsonSchema(noteSchema);
    const properties = jsonSchema['properties'] as Record<string, Record<string, unknown>>;
    // minLength is not in strict mode's keyword list: zod checks it after parsing instead.
    expect(properties['title']).toEqual({ type: 'string' });
    expect(properties['body']).toEqual({ type: ['string', 'null'] });
    expect(properties['tags']).toEqual({
      anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }],
    });
    expect(properties['kind']).toEqual({
      anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }],
    });
    // Already nullable (and required): unchanged apart from the kept keywords.
    expect(properties['score']).toEqual({
      anyOf: [{ type: 'number', minimum: 0, maximum: 1 }, { type: 'null' }],
    });
  });

  it("turns the model's nulls for optional fields back into absent fields", () => {
    const { restoreOptionalFields } = toStrictJsonSchema(noteSchema);
    const restored = restoreOptionalFields({
      title: 't',
      body: null,
      tags: null,
      kind: null,
      author: { name: 'n', email: null },
      score: null,
    });
    expect(restored).toEqual({ title: 't', author: { name: 'n' }, score: null });
    expect(noteSchema.parse(restored)).toEqual({
      title: 't',
      tags: [],
      author: { name: 'n' },
      score: null,
    });
  });

  it('restores fields inside arrays and discriminated unions', () => {
    const schema = z.object({
      items: z.array(
        z.discriminatedUnion('type', [
          z.object({ type: z.literal('a'), x: z.string().optional() }),
          z.object({ type: z.literal('b'), y: z.number().optional() }),
        ]),
      ),
    });
    const { jsonSchema, restoreOptionalFields } = toStrictJsonSchema(schema);
    const items = (jsonSchema['properties'] as Record<string, Record<string, unknown>>)['items']!;
    expect((items['items'] as Record<string, unknown>)['anyOf']).toHaveLength(2);
    expect(
      restoreOptionalFields({
        items: [
          { type: 'a', x: null },
          { type: 'b', y: 2 },
        ],
      }),
    ).toEqual({ items: [{ type: 'a' }, { type: 'b', y: 2 }] });
  });

  it('refuses what strict mode cannot express', () => {
    expect(() => toStrictJsonSchema(z.object({ map: z.record(z.string(), z.number()) }))).toThrow(
      /records/,
    );
    expect(() => toStrictJsonSchema(z.object({ anything: z.unknown() }))).toThrow(TypeError);
    expect(() => toStrictJsonSchema(z.string())).toThrow(/object schema at the root/);
  });

  it('caches the conversion per schema', () => {
    expect(toStrictJsonSchema(noteSchema)).toBe(toStrictJsonSchema(noteSchema));
  });
});
