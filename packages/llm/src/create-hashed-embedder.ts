import { AbortError } from '@fleet/errors';
import { SpanKind, withSpan, type WithSpanOptions } from '@fleet/telemetry';
import type { EmbedOptions, Embedder } from './embedder';

/** The model name of {@link createHashedEmbedder}'s vectors. */
export const HASHED_EMBEDDING_MODEL = 'local-hashed-v1';

/** The default vector size of {@link createHashedEmbedder}. */
export const DEFAULT_HASHED_DIMENSIONS = 384;

/** Options for {@link createHashedEmbedder}. */
export interface CreateHashedEmbedderOptions {
  /** Vector size. @default 384 */
  dimensions?: number;
  /** The tracer for the `llm.embed` span. @default the global one */
  tracer?: WithSpanOptions['tracer'];
}

/** Weight of a stop word's unigram: kept (a query of stop words still matches) but muted. */
const STOP_WORD_WEIGHT = 0.2;
/** Weight of a bigram relative to a content word: phrase overlap helps, words still dominate. */
const BIGRAM_WEIGHT = 0.6;

// A short English stop-word list (articles, pronouns, auxiliaries, prepositions, conjunctions).
const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being ' +
    'below between both but by can could did do does doing down during each few for from further ' +
    'had has have having he her here hers herself him himself his how i if in into is it its itself ' +
    'just me more most my myself no nor not now of off on once only or other our ours ourselves ' +
    'out over own same she should so some such than that the their theirs them themselves then ' +
    'there these they this those through to too under until up very was we were what when where ' +
    'which while who whom why will with would you your yours yourself yourselves also may might ' +
    'must shall us via per'
  ).split(' '),
);

const DOUBLED_CONSONANT = /([b-df-hj-np-tv-z])\1$/;

/**
 * Light suffix stripping so inflections share a feature: plurals (`policies` → `policy`,
 * `boxes` → `box`, `invoices` → `invoice`), `-ing` and `-ed` (`running` → `run`, `stored` →
 * `store`), then a final `e` is dropped (`invoice`/`invoicing` → `invoic`), as Porter's last step
 * does. Words of three letters or fewer are left alone.
 */
function stem(word: string): string {
  if (word.length <= 3) return word;
  let base = word;
  if (base.endsWith('ies') && base.length > 4) base = `${base.slice(0, -3)}y`;
  else if (/(?:ch|sh|x|z|ss)es$/.test(base)) base = base.slice(0, -2);
  else if (base.endsWith('s') && !/(?:ss|us|is)$/.test(base)) base = base.slice(0, -1);
  else if (base.endsWith('ing') && base.length > 5) base = undouble(base.slice(0, -3));
  else if (base.endsWith('ed') && base.length > 5) base = undouble(base.slice(0, -2));
  if (base.length > 4 && base.endsWith('e')) base = base.slice(0, -1);
  return base;
}

function undouble(base: string): string {
  return DOUBLED_CONSONANT.test(base) && !/(?:ll|ss|zz)$/.test(base) ? base.slice(0, -1) : base;
}

/** Lower-cased words without punctuation (`don't` → `dont`, `e-mail` → `e`, `mail`). */
function words(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .replace(/['’]/g, '')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** FNV-1a over UTF-16 code units, then murmur3's finaliser for a better spread of low bits. */
function hash32(text: string, seed: number): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * The features of one text, `u:<stem>` unigrams and `b:<stem> <stem>` bigrams, each with its base
 * weight and how often it occurs.
 */
function features(text: string): Map<string, { weight: number; count: number }> {
  const found = new Map<string, { weight: number; count: number }>();
  const add = (feature: string, weight: number): void => {
    const seen = found.get(feature);
    if (seen) seen.count += 1;
    else found.set(feature, { weight, count: 1 });
  };
  let previous: string | undefined;
  for (const word of words(text)) {
    const stop = STOP_WORDS.has(word);
    const stemmed = stop ? word : stem(word);
    add(`u:${stemmed}`, stop ? STOP_WORD_WEIGHT : 1);
    if (stop) continue;
    // Bigrams join consecutive content words, skipping stop words between them
    // ("state of the art" → "state art").
    if (previous !== undefined) add(`b:${previous} ${stemmed}`, BIGRAM_WEIGHT);
    previous = stemmed;
  }
  return found;
}

/** Embeds one text (see {@link createHashedEmbedder}). */
function embedOne(text: string, dimensions: number): number[] {
  const vector = new Float64Array(dimensions);
  for (const [feature, { weight, count }] of features(text)) {
    // Sublinear term frequency: a word repeated ten times is not ten times as important.
    const value = weight * (1 + Math.log(count));
    // Two signed probes per feature halve the damage a single hash collision does.
    for (const seed of [0x9e3779b9, 0x7f4a7c15]) {
      const hash = hash32(feature, seed);
      const index = hash % dimensions;
      vector[index] = (vector[index] ?? 0) + (hash & 0x80000000 ? -value : value);
    }
  }
  let norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  if (norm === 0) {
    // No words (or all features cancelled out): a unit vector picked by the whole text.
    vector[hash32(text, 1) % dimensions] = 1;
    norm = 1;
  }
  // float32, as pgvector stores it, so a vector read back equals the one computed.
  return Array.from(vector, (value) => Math.fround(value / norm));
}

/**
 * The offline mode's embedder: deterministic local feature hashing, no network and no model. Each
 * text becomes lower-cased words (punctuation stripped, plurals, `-ing` and `-ed` lightly stemmed);
 * every word (stop words at a fifth of the weight) and every pair of consecutive content words is
 * hashed to two signed dimensions; the vector is scaled to unit length. Texts that share words
 * therefore have a higher cosine similarity, which is what retrieval needs, but there is no notion of
 * synonyms or meaning: pair it with full-text search (hybrid retrieval) and expect lower recall than
 * a real embedding model. The same text always gets the same vector, in any process.
 *
 * @param options.dimensions - the vector size. @default 384
 * @example
 * const embedder = createHashedEmbedder();
 * const [vector] = await embedder.embed(['Refund policy for annual plans']);
 */
export function createHashedEmbedder({
  dimensions = DEFAULT_HASHED_DIMENSIONS,
  tracer,
}: CreateHashedEmbedderOptions = {}): Embedder {
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new TypeError(`dimensions must be a positive integer, got ${dimensions}`);
  }
  return {
    model: HASHED_EMBEDDING_MODEL,
    dimensions,
    embed(texts: readonly string[], options: EmbedOptions = {}): Promise<number[][]> {
      if (options.signal?.aborted) {
        return Promise.reject(new AbortError('The embedding was aborted.'));
      }
      if (texts.length === 0) return Promise.resolve([]);
      return withSpan(
        {
          name: 'llm.embed',
          kind: SpanKind.EMBEDDING,
          tracer,
          attributes: { 'embedding.model_name': HASHED_EMBEDDING_MODEL },
          input: { texts: texts.length },
        },
        () => Promise.resolve(texts.map((text) => embedOne(text, dimensions))),
      );
    },
  };
}
