import type { Chunk } from './types';

/**
 * The chunks of a document with repeated passages kept once: a child whose text an earlier child
 * already has is dropped (it would add nothing a search can find), and so is a parent all of whose
 * children were dropped. Ordinals are renumbered densely, children still pointing at their
 * parents. A spreadsheet that repeats one long cell thousands of times, or a PDF whose every page
 * carries the same boilerplate, is then stored (and embedded) once rather than once per copy.
 *
 * @example
 * const { chunks, dropped } = dropRepeatedChunks(parsed.chunks);
 */
export function dropRepeatedChunks(chunks: readonly Chunk[]): { chunks: Chunk[]; dropped: number } {
  const seen = new Set<string>();
  const keptChildren = new Map<number, number>();
  const childCount = new Map<number, number>();
  const keep = new Set<number>();
  for (const chunk of chunks) {
    if (chunk.kind !== 'child') continue;
    const parent = chunk.parentOrdinal;
    if (parent !== undefined) childCount.set(parent, (childCount.get(parent) ?? 0) + 1);
    if (seen.has(chunk.text)) continue;
    seen.add(chunk.text);
    keep.add(chunk.ordinal);
    if (parent !== undefined) keptChildren.set(parent, (keptChildren.get(parent) ?? 0) + 1);
  }
  for (const chunk of chunks) {
    if (chunk.kind !== 'parent') continue;
    const children = childCount.get(chunk.ordinal) ?? 0;
    if (children === 0 || (keptChildren.get(chunk.ordinal) ?? 0) > 0) keep.add(chunk.ordinal);
  }
  const dropped = chunks.length - keep.size;
  if (dropped === 0) return { chunks: [...chunks], dropped: 0 };
  const renumbered = new Map<number, number>();
  const kept = chunks.filter((chunk) => keep.has(chunk.ordinal));
  kept.forEach((chunk, index) => renumbered.set(chunk.ordinal, index));
  return {
    chunks: kept.map((chunk, index) => {
      const parentOrdinal =
        chunk.parentOrdinal === undefined ? undefined : renumbered.get(chunk.parentOrdinal);
      const { parentOrdinal: _old, ...rest } = chunk;
      return { ...rest, ordinal: index, ...(parentOrdinal === undefined ? {} : { parentOrdinal }) };
    }),
    dropped,
  };
}
