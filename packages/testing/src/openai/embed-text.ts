/** Options for {@link embedText}. */
export interface EmbedTextOptions {
  text: string;
  /** @default 1536 */
  dimensions?: number;
}

/** The default embedding size, that of `text-embedding-3-small`. */
export const DEFAULT_EMBEDDING_DIMENSIONS = 1536;

function fnv1a(text: string, seed: number): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * The scripted server's deterministic embedding: feature hashing of the lower-cased words (each
 * word adds ±1 to two dimensions chosen by its hash), normalised to unit length. The same text
 * always gets the same vector, and texts that share words have a higher cosine similarity, so
 * retrieval tests rank documents meaningfully without a model. A text without words gets a unit
 * vector chosen by the hash of the whole text.
 *
 * @example
 * const [a, b] = [embedText({ text: 'red apples' }), embedText({ text: 'apples' })];
 */
export function embedText({
  text,
  dimensions = DEFAULT_EMBEDDING_DIMENSIONS,
}: EmbedTextOptions): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    for (const seed of [1, 2]) {
      const hash = fnv1a(word, seed);
      const index = hash % dimensions;
      vector[index] = (vector[index] ?? 0) + (hash & 0x80000000 ? -1 : 1);
    }
  }
  let norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  if (norm === 0) {
    vector[fnv1a(text, 3) % dimensions] = 1;
    norm = 1;
  }
  // Round-trip through float32 so the float and base64 encodings give identical numbers.
  return Array.from(new Float32Array(vector.map((value) => value / norm)));
}

/** Encodes a vector as OpenAI's `encoding_format: 'base64'` does: little-endian float32 bytes. */
export function embeddingToBase64(vector: readonly number[]): string {
  const floats = new Float32Array(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}
