import { describe, expect, it } from '@jest/globals';
import { DEFAULT_MAX_VALUE_LENGTH, serializeValue, truncateText } from './serialize-value';

describe('serializeValue', () => {
  it('keeps strings as text/plain and serialises the rest as JSON', () => {
    expect(serializeValue('hi')).toEqual({ text: 'hi', mimeType: 'text/plain' });
    expect(serializeValue({ a: [1, null] })).toEqual({
      text: '{"a":[1,null]}',
      mimeType: 'application/json',
    });
    expect(serializeValue(3)).toEqual({ text: '3', mimeType: 'application/json' });
  });

  it('caps at 32 KiB by default', () => {
    const long = 'z'.repeat(DEFAULT_MAX_VALUE_LENGTH + 5);
    expect(DEFAULT_MAX_VALUE_LENGTH).toBe(32768);
    expect(serializeValue(long).text).toBe(
      `${'z'.repeat(DEFAULT_MAX_VALUE_LENGTH)}…[truncated 5 characters]`,
    );
  });
});

describe('truncateText', () => {
  it('leaves short text alone', () => {
    expect(truncateText('short', 5)).toBe('short');
  });

  it('never splits a surrogate pair', () => {
    expect(truncateText('ab😀cd', 3)).toBe('ab…[truncated 4 characters]');
  });
});
