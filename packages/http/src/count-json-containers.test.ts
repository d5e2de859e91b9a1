import { describe, expect, it } from '@jest/globals';
import { countJsonContainers } from './count-json-containers';

const count = (text: string, stopAfter?: number) =>
  countJsonContainers(Buffer.from(text, 'utf8'), stopAfter);

describe('countJsonContainers', () => {
  it('counts objects and arrays, not brackets inside strings', () => {
    expect(count('{"a":[1,{}],"b":"[{not}]"}')).toBe(3);
    expect(count('"{[{["')).toBe(0);
    expect(count('[]')).toBe(1);
    expect(count('42')).toBe(0);
  });

  it('knows an escaped quote from the end of a string', () => {
    expect(count('["a\\"[{", {}]')).toBe(2);
    expect(count('["a\\\\", {}]')).toBe(2);
    expect(count('["\\\\\\"[", []]')).toBe(2);
  });

  it('counts multi-byte text as it is', () => {
    expect(count('{"é":["日本", {"🙂":[]}]}')).toBe(4);
  });

  it('stops once the count passes the bound', () => {
    const many = `[${new Array<string>(1_000_000).fill('{}').join(',')}]`;
    expect(count(many, 10)).toBe(11);
    expect(count(many)).toBe(1_000_001);
  });

  it('stops at an unterminated string', () => {
    expect(count('[{"a":"never ends [[[')).toBe(2);
  });
});
