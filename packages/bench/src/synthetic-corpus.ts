/** A seeded pseudo-random number generator (mulberry32): the same seed, the same corpus. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const ONSETS = [
  'b',
  'br',
  'c',
  'ch',
  'd',
  'f',
  'fl',
  'g',
  'gr',
  'h',
  'k',
  'l',
  'm',
  'n',
  'p',
  'pl',
  'r',
  's',
  'st',
  't',
  'tr',
  'v',
  'w',
  'z',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou'];
const CODAS = ['', 'n', 'r', 'l', 's', 'm', 'nt', 'st', 'x', 'ck', 'rd', 'ng'];

/** Stop words at roughly their share of running English text. */
const STOP_WORDS = [
  'the',
  'of',
  'and',
  'to',
  'a',
  'in',
  'is',
  'for',
  'that',
  'with',
  'on',
  'as',
  'by',
  'this',
  'are',
  'be',
  'at',
  'from',
  'or',
  'it',
  'an',
  'which',
  'all',
  'can',
  'their',
  'when',
  'each',
  'after',
  'before',
  'must',
];

/** Options for {@link createSyntheticCorpus}. */
export interface SyntheticCorpusOptions {
  seed: number;
  /** Distinct content words. @default 6000 */
  vocabulary?: number;
  /** Topics; a document has one, its words favour the topic's. @default 300 */
  topics?: number;
  /** Words per topic. @default 120 */
  topicWords?: number;
}

/** A synthetic document: sections of child texts (each ~60–110 words) under a title. */
export interface SyntheticDocument {
  title: string;
  topic: number;
  sections: { heading: string; texts: string[] }[];
}

/** Generates documents and questions about them. */
export interface SyntheticCorpus {
  document(options: { sections: number; childrenPerSection: number }): SyntheticDocument;
  /** A question built from 3–5 content words of `text` (plus, sometimes, one topic word). */
  question(text: string, topic: number): string;
}

function pseudoWord(random: () => number): string {
  const syllables = 2 + Math.floor(random() * 2);
  let word = '';
  for (let index = 0; index < syllables; index++) {
    word += ONSETS[Math.floor(random() * ONSETS.length)] ?? '';
    word += VOWELS[Math.floor(random() * VOWELS.length)] ?? '';
    if (index === syllables - 1 || random() < 0.3) {
      word += CODAS[Math.floor(random() * CODAS.length)] ?? '';
    }
  }
  return word;
}

/**
 * Picks an index in [0, size) with probability ∝ 1/(rank + offset) (Zipf–Mandelbrot, s = 1). An
 * offset of 1 is plain Zipf; a larger one flattens the head, as content words (stop words
 * removed) are flatter than all words.
 */
function zipf(random: () => number, size: number, offset = 1): number {
  // Inverse of the continuous approximation of the CDF: ln((x + offset) / offset).
  const index = Math.floor(offset * Math.pow((size + offset) / offset, random()) - offset);
  return Math.min(size - 1, Math.max(0, index));
}

/** The Zipf–Mandelbrot offset of content words: the commonest is in a few % of chunks. */
const CONTENT_OFFSET = 40;

/**
 * A deterministic generator of realistic-looking text for retrieval benchmarks: pronounceable
 * pseudo-words, stop words at about 40 % of tokens, and topics. A document draws 60 % of its
 * content words from its topic's own vocabulary (Zipf-skewed) and the rest from the whole lexicon
 * (Zipf–Mandelbrot, so the commonest content words are in a few % of chunks, not all), so similar
 * chunks exist, texts share words the way real ones do, and full-text search has rare and common
 * terms to rank. Questions use 3–5 of a chunk's more specific words.
 *
 * @example
 * const corpus = createSyntheticCorpus({ seed: 42 });
 * const document = corpus.document({ sections: 5, childrenPerSection: 10 });
 */
export function createSyntheticCorpus({
  seed,
  vocabulary = 6000,
  topics = 300,
  topicWords = 120,
}: SyntheticCorpusOptions): SyntheticCorpus {
  const random = createRandom(seed);
  const words = new Set<string>();
  while (words.size < vocabulary) words.add(pseudoWord(random));
  const lexicon = [...words];
  // Each topic has its own words (drawn evenly from the lexicon), used with a Zipf skew.
  const topicLexicons = Array.from({ length: topics }, () =>
    Array.from(
      { length: topicWords },
      () => lexicon[Math.floor(random() * lexicon.length)] ?? 'word',
    ),
  );
  /** Words common across the whole corpus: the head of the lexicon's distribution. */
  const common = new Set(lexicon.slice(0, 200));
  const stopWord = (): string => STOP_WORDS[zipf(random, STOP_WORDS.length)] ?? 'the';
  const contentWord = (topic: number): string => {
    const own = topicLexicons[topic] ?? lexicon;
    return random() < 0.6
      ? (own[zipf(random, own.length, 5)] ?? 'word')
      : (lexicon[zipf(random, lexicon.length, CONTENT_OFFSET)] ?? 'word');
  };
  const sentence = (topic: number): string => {
    const length = 8 + Math.floor(random() * 13);
    const tokens: string[] = [];
    for (let index = 0; index < length; index++) {
      tokens.push(random() < 0.4 ? stopWord() : contentWord(topic));
    }
    const first = tokens[0] ?? 'word';
    tokens[0] = first.charAt(0).toUpperCase() + first.slice(1);
    if (random() < 0.15) tokens.push(String(Math.floor(random() * 2000)));
    return `${tokens.join(' ')}.`;
  };
  const paragraph = (topic: number): string => {
    const sentences = 4 + Math.floor(random() * 3);
    return Array.from({ length: sentences }, () => sentence(topic)).join(' ');
  };
  return {
    document({ sections, childrenPerSection }) {
      const topic = Math.floor(random() * topics);
      return {
        title: `${contentWord(topic)} ${contentWord(topic)} report`,
        topic,
        sections: Array.from({ length: sections }, () => ({
          heading: `${contentWord(topic)} ${contentWord(topic)}`,
          texts: Array.from({ length: childrenPerSection }, () => paragraph(topic)),
        })),
      };
    },
    question(text: string, topic: number): string {
      const candidates = [
        ...new Set(
          text
            .toLowerCase()
            .match(/[a-z]+/g)
            ?.filter((word) => !STOP_WORDS.includes(word)) ?? [],
        ),
      ];
      // People ask about what is specific to a passage: prefer words outside the common head.
      const specific = candidates.filter((word) => !common.has(word));
      if (specific.length >= 3) candidates.splice(0, candidates.length, ...specific);
      const count = 3 + Math.floor(random() * 3);
      const picked: string[] = [];
      while (picked.length < Math.min(count, candidates.length)) {
        const word = candidates[Math.floor(random() * candidates.length)];
        if (word !== undefined && !picked.includes(word)) picked.push(word);
      }
      if (random() < 0.5) picked.push(contentWord(topic));
      return `What does the documentation say about ${picked.join(' ')}?`;
    },
  };
}
