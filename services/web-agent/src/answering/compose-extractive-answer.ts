import { segmentSentences } from '@fleet/llm';
import { keepCitedSources } from './keep-cited-sources';
import type { SourceMaterial, WebAnswer } from './web-source';

const STOPWORDS = new Set(
  "the and for are was were what which who whom whose when where why how does did about from with that this these those into over under than then there their them they you your our ours has have had not but can could would should will shall may might must its it’s it's also any all some more most such only just very web search find look tell give show please latest news".split(
    ' ',
  ),
);

/** The words of `text` worth matching: lower-cased, 3+ characters, no stopwords. */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).filter(
    (word) => !STOPWORDS.has(word),
  );
}

/**
 * Sentences of a text, cut at line breaks and sentence ends (ICU's sentences, common abbreviations
 * mended, also ended before a number: `segmentSentences`), 20–400 characters.
 */
export function splitSentences(text: string): string[] {
  return text
    .split(/\n+/)
    .flatMap((line) => segmentSentences(line, { quoting: true }))
    .map((sentence) => sentence.replace(/\s+/g, ' '))
    .filter((sentence) => sentence.length >= 20 && sentence.length <= 400);
}

interface Pick {
  source: number;
  sentence: string;
  score: number;
}

/** Most sources an extractive answer quotes. */
const MAX_QUOTED = 4;

/**
 * The offline answer (docs/architecture.md §8): for each source, the sentence of its page text (or
 * snippet) that shares the most words with the question, cited `[n]`, best sources first. When no
 * sentence shares a word, the top results' snippets are quoted. No model, no invented text.
 *
 * @example
 * composeExtractiveAnswer({ question: 'When was Node 22 released?', query, materials }).text;
 * // 'From the web (search: "Node 22 release"):\n- Node.js 22 was released on 24 April 2024 [1]'
 */
export function composeExtractiveAnswer({
  question,
  query,
  materials,
}: {
  question: string;
  /** What was searched, for the lead line; undefined when pages were read directly. */
  query: string | undefined;
  materials: readonly SourceMaterial[];
}): WebAnswer {
  const sources = materials.map((material) => material.source);
  const terms = new Set(contentWords(question));
  const picks: Pick[] = [];
  materials.forEach((material, index) => {
    const candidates = splitSentences(`${material.source.snippet}\n${material.text}`);
    let best: Pick | undefined;
    for (const sentence of candidates) {
      const words = new Set(contentWords(sentence));
      let score = 0;
      for (const term of terms) if (words.has(term)) score += 1;
      if (score > 0 && (best === undefined || score > best.score))
        best = { source: index + 1, sentence, score };
    }
    if (best) picks.push(best);
  });
  let chosen = picks
    .sort((left, right) => right.score - left.score || left.source - right.source)
    .slice(0, MAX_QUOTED)
    .sort((left, right) => left.source - right.source);
  if (chosen.length === 0) {
    chosen = materials
      .slice(0, 3)
      .map((material, index) => ({
        source: index + 1,
        sentence: (splitSentences(material.source.snippet)[0] ?? material.source.snippet).trim(),
        score: 0,
      }))
      .filter((pick) => pick.sentence !== '');
  }
  const lead = query === undefined ? 'From the pages read:' : `From the web (search: "${query}"):`;
  if (chosen.length === 0) {
    return {
      text:
        query === undefined
          ? 'The pages had no readable text.'
          : `The web search for "${query}" found nothing to answer with.`,
      sources: [],
      answeredBy: 'extractive',
    };
  }
  // The marker goes before a final full stop: "… in 2024 [1]."
  const lines = chosen.map((pick) => {
    const sentence = pick.sentence.trim();
    return sentence.endsWith('.')
      ? `- ${sentence.slice(0, -1)} [${pick.source}].`
      : `- ${sentence} [${pick.source}]`;
  });
  return {
    ...keepCitedSources({ text: `${lead}\n${lines.join('\n')}`, sources }),
    answeredBy: 'extractive',
  };
}
