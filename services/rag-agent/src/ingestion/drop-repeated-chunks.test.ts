import { describe, expect, it } from '@jest/globals';
import { dropRepeatedChunks } from './drop-repeated-chunks';
import type { Chunk } from './types';

function chunk(ordinal: number, text: string, parentOrdinal?: number): Chunk {
  const kind: Chunk['kind'] = parentOrdinal === undefined ? 'parent' : 'child';
  return {
    ordinal,
    kind,
    text,
    tokens: 1,
    section: '',
    metadata: {},
    ...(parentOrdinal === undefined ? {} : { parentOrdinal }),
  };
}

describe('dropRepeatedChunks', () => {
  it('keeps a document without repeats as it is', () => {
    const chunks = [chunk(0, 'p'), chunk(1, 'a', 0), chunk(2, 'b', 0)];
    expect(dropRepeatedChunks(chunks)).toEqual({ chunks, dropped: 0 });
  });

  it('stores a repeated passage once, drops parents left without children, renumbers densely', () => {
    const chunks = [
      chunk(0, 'P1'),
      chunk(1, 'same', 0),
      chunk(2, 'first', 0),
      chunk(3, 'P2'),
      chunk(4, 'same', 3),
      chunk(5, 'P3'),
      chunk(6, 'same', 5),
      chunk(7, 'last', 5),
    ];
    const { chunks: kept, dropped } = dropRepeatedChunks(chunks);
    expect(dropped).toBe(3);
    expect(kept.map((each) => [each.ordinal, each.kind, each.text, each.parentOrdinal])).toEqual([
      [0, 'parent', 'P1', undefined],
      [1, 'child', 'same', 0],
      [2, 'child', 'first', 0],
      [3, 'parent', 'P3', undefined],
      [4, 'child', 'last', 3],
    ]);
  });
});
