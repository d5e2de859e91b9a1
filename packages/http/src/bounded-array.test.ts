import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { boundedArray, MAX_ITEM_ISSUES, stringOr } from './bounded-array';

/** An item schema that counts how often it is asked. */
function countingItem(valid: (value: unknown) => boolean) {
  const counter = { calls: 0 };
  const schema = z.custom<unknown>(
    (value) => {
      counter.calls += 1;
      return valid(value);
    },
    { error: 'bad item' },
  );
  return { counter, schema };
}

describe('boundedArray', () => {
  it('checks a million invalid items only until the first few problems', () => {
    const { counter, schema } = countingItem(() => false);
    const result = boundedArray(schema, { error: 'not an array' }).safeParse(
      new Array<number>(1_000_000).fill(0),
    );
    expect(counter.calls).toBe(MAX_ITEM_ISSUES);
    expect(result.error?.issues).toEqual([
      ...Array.from({ length: MAX_ITEM_ISSUES }, (_, index) =>
        expect.objectContaining({ path: [index], message: 'bad item' }),
      ),
      expect.objectContaining({
        path: [],
        message: `checking stopped after ${MAX_ITEM_ISSUES} invalid items; 999995 more were not checked`,
        params: { uncheckedItems: 999_995 },
      }),
    ]);
  });

  it('refuses an array over `max` before asking about any item', () => {
    const { counter, schema } = countingItem(() => true);
    const result = boundedArray(schema, {
      error: 'not an array',
      max: { count: 3, message: 'at most 3' },
    }).safeParse([1, 2, 3, 4]);
    expect(counter.calls).toBe(0);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual(['at most 3']);
  });

  it('parses a valid array item by item, with what the item schema makes of each', () => {
    const schema = boundedArray(z.looseObject({ role: z.string() }), {
      error: 'not an array',
      min: { count: 1, message: 'at least one' },
    });
    expect(schema.parse([{ role: 'user', content: 'hi' }])).toEqual([
      { role: 'user', content: 'hi' },
    ]);
    expect(schema.safeParse([]).error?.issues[0]?.message).toBe('at least one');
    expect(schema.safeParse({}).error?.issues[0]?.message).toBe('not an array');
    expect(schema.safeParse(undefined).error?.issues[0]?.message).toBe('not an array');
  });

  it('reports items that fail after valid ones, and keeps a nested array bounded too', () => {
    const inner = countingItem((value) => typeof value === 'number');
    const schema = z.object({
      input: boundedArray(boundedArray(inner.schema, { error: 'tokens' }), { error: 'inputs' }),
    });
    const result = schema.safeParse({ input: [[1, 2], new Array<string>(100_000).fill('x')] });
    expect(inner.counter.calls).toBe(2 + MAX_ITEM_ISSUES);
    expect(result.error?.issues[0]?.path).toEqual(['input', 1, 0]);
    expect(result.error?.issues.at(-1)).toMatchObject({ params: { uncheckedItems: 99_995 } });
  });
});

describe('stringOr', () => {
  const schema = stringOr(boundedArray(z.string(), { error: 'unused' }), {
    error: 'a string or strings',
  });

  it('takes a string, or an array the array schema accepts', () => {
    expect(schema.parse('hi')).toBe('hi');
    expect(schema.parse(['a', 'b'])).toEqual(['a', 'b']);
  });

  it("names an array's own problems by index, anything else with its one message", () => {
    expect(schema.safeParse(['a', 7]).error?.issues[0]?.path).toEqual([1]);
    expect(schema.safeParse(7).error?.issues[0]?.message).toBe('a string or strings');
    expect(
      stringOr(boundedArray(z.string(), { error: 'unused' }), {
        error: 'x',
        numbers: true,
      }).parse(7),
    ).toBe(7);
  });
});
