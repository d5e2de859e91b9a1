import { describe, expect, it } from '@jest/globals';
import { AbortError } from '@fleet/errors';
import { createHashedEmbedder, HASHED_EMBEDDING_MODEL } from './create-hashed-embedder';

/** The first non-zero entries of one text's vector, as [index, value]. */
const PINNED = [
  [2, 0.053],
  [12, 0.159],
  [22, -0.159],
  [37, 0.264999],
  [61, -0.264999],
  [68, -0.159],
];

function cosine(a: readonly number[], b: readonly number[]): number {
  return a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0);
}

function norm(vector: readonly number[]): number {
  return Math.sqrt(cosine(vector, vector));
}

describe('createHashedEmbedder', () => {
  const embedder = createHashedEmbedder();

  it('names its model and defaults to 384 dimensions', () => {
    expect(embedder.model).toBe(HASHED_EMBEDDING_MODEL);
    expect(embedder.model).toBe('local-hashed-v1');
    expect(embedder.dimensions).toBe(384);
    expect(createHashedEmbedder({ dimensions: 64 }).dimensions).toBe(64);
  });

  it('returns one unit-length vector per text, in order', async () => {
    const texts = ['Refund policy for annual plans', 'GPU cluster pricing', '', '!!!'];
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(4);
    for (const vector of vectors) {
      expect(vector).toHaveLength(384);
      expect(norm(vector)).toBeCloseTo(1, 5);
    }
    const [first] = await embedder.embed([texts[1]!]);
    expect(vectors[1]).toEqual(first);
    expect(await embedder.embed([])).toEqual([]);
  });

  it('is deterministic across instances', async () => {
    const text = 'The quarterly revenue report for EMEA, 2024.';
    const [a] = await embedder.embed([text]);
    const [b] = await createHashedEmbedder().embed([text]);
    expect(a).toEqual(b);
    // Pinned values: a change to the hashing changes every stored vector, so it must be deliberate
    // (and needs a new model name).
    const nonZero = a!
      .map((value, index) => [index, Number(value.toFixed(6))])
      .filter(([, value]) => value !== 0);
    expect(nonZero.slice(0, PINNED.length)).toEqual(PINNED);
  });

  it('gives texts that share words a higher cosine similarity', async () => {
    const [query, related, unrelated] = await embedder.embed([
      'refund policy for annual subscriptions',
      'Our refund policy: annual subscriptions are refunded pro rata.',
      'The GPU cluster runs training jobs overnight.',
    ]);
    expect(cosine(query!, related!)).toBeGreaterThan(0.4);
    expect(cosine(query!, related!)).toBeGreaterThan(cosine(query!, unrelated!) + 0.3);
  });

  it('ignores case and punctuation and stems plurals, -ing and -ed', async () => {
    const [a, b, c, d] = await embedder.embed([
      'Invoice policies',
      'invoice... POLICY!',
      'processing invoices',
      'processed invoice',
    ]);
    expect(cosine(a!, b!)).toBeCloseTo(1, 5);
    expect(cosine(c!, d!)).toBeCloseTo(1, 5);
  });

  it('down-weights stop words', async () => {
    const [base, sameStopWords, sameContent] = await embedder.embed([
      'the pricing of the cluster',
      'the history of the war',
      'pricing cluster',
    ]);
    // Sharing only "the … of the" counts for little; sharing the content words counts for most.
    expect(cosine(base!, sameStopWords!)).toBeLessThan(0.2);
    expect(cosine(base!, sameContent!)).toBeGreaterThan(0.9);
  });

  it('rewards word order through bigrams', async () => {
    const [query, inOrder, reversed] = await embedder.embed([
      'machine learning',
      'machine learning pipelines',
      'learning machine pipelines',
    ]);
    expect(cosine(query!, inOrder!)).toBeGreaterThan(cosine(query!, reversed!));
  });

  it('rejects an aborted call and a bad size', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(['x'], { signal: controller.signal })).rejects.toBeInstanceOf(
      AbortError,
    );
    expect(() => createHashedEmbedder({ dimensions: 0 })).toThrow(TypeError);
  });
});
