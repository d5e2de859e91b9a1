import { describe, expect, it } from '@jest/globals';
import { createRandom, createSyntheticCorpus } from './synthetic-corpus';

describe('createSyntheticCorpus', () => {
  it('is deterministic for a seed', () => {
    const a = createSyntheticCorpus({ seed: 7 }).document({ sections: 2, childrenPerSection: 3 });
    const b = createSyntheticCorpus({ seed: 7 }).document({ sections: 2, childrenPerSection: 3 });
    const c = createSyntheticCorpus({ seed: 8 }).document({ sections: 2, childrenPerSection: 3 });
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });

  it('writes paragraphs of sentences and questions from their words', () => {
    const corpus = createSyntheticCorpus({ seed: 1 });
    const document = corpus.document({ sections: 5, childrenPerSection: 10 });
    expect(document.sections).toHaveLength(5);
    const texts = document.sections.flatMap((section) => section.texts);
    expect(texts).toHaveLength(50);
    for (const text of texts) {
      const words = text.split(/\s+/).length;
      expect(words).toBeGreaterThanOrEqual(30);
      expect(words).toBeLessThanOrEqual(130);
      expect(text).toMatch(/^[A-Z].*\.$/s);
    }
    const text = texts[0]!;
    const question = corpus.question(text, document.topic);
    const asked = question.replace('What does the documentation say about ', '').replace('?', '');
    const fromText = asked.split(' ').filter((word) => text.toLowerCase().includes(word));
    expect(fromText.length).toBeGreaterThanOrEqual(3);
  });

  it('draws words with a skewed (Zipf-like) frequency', () => {
    const corpus = createSyntheticCorpus({ seed: 3 });
    const counts = new Map<string, number>();
    for (let index = 0; index < 20; index++) {
      for (const section of corpus.document({ sections: 5, childrenPerSection: 10 }).sections) {
        for (const word of section.texts
          .join(' ')
          .toLowerCase()
          .match(/[a-z]+/g) ?? []) {
          counts.set(word, (counts.get(word) ?? 0) + 1);
        }
      }
    }
    const sorted = [...counts.values()].sort((a, b) => b - a);
    // The commonest word is far commoner than the median one, and many words occur once.
    expect(sorted[0]!).toBeGreaterThan(20 * sorted[Math.floor(sorted.length / 2)]!);
    expect(sorted.filter((count) => count === 1).length).toBeGreaterThan(100);
  });
});

describe('createRandom', () => {
  it('yields the same numbers in [0, 1) for a seed', () => {
    const a = createRandom(5);
    const b = createRandom(5);
    const values = Array.from({ length: 1000 }, () => a());
    expect(values).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(values.every((value) => value >= 0 && value < 1)).toBe(true);
  });
});
