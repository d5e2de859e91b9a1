import { segmentSentences, splitQuestion as splitQuestionParts } from '@fleet/llm';
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

/** Request words that carry no subject: a part of only these is joined to its neighbour. */
const REQUEST_WORDS = new Set(['see', 'check', 'read', 'explain', 'describe', 'summarize', 'list']);

/**
 * The parts of a question that asks several things (`splitQuestion` of `@fleet/llm`): URLs are
 * left out, and a part with no words of its own ("and why", "See") is joined to its neighbour.
 *
 * @example
 * splitQuestion('When was Node.js 22 released and what does it change?');
 * // ['When was Node.js 22 released', 'what does it change']
 */
export function splitQuestion(question: string): string[] {
  return splitQuestionParts(question, {
    dropUrls: true,
    hasSubject: (part) => contentWords(part).some((word) => !REQUEST_WORDS.has(word)),
  });
}

interface Pick {
  source: number;
  sentence: string;
  score: number;
}

/** Most sources an extractive answer quotes for a question of one part. */
const MAX_QUOTED = 4;
/** Most sentences quoted for one part of a question that asks several things. */
const PER_PART = 2;
/** Share of a part's best score a further sentence for that part needs. */
const MULTI_PART_FOCUS = 0.7;
/** How much a word of an earlier part counts ("Node.js 22" in "what does it change"). */
const CONTEXT_WEIGHT = 0.35;
/** Share of its own words a sentence must contain to answer one part of several. */
const PART_COVERAGE = 0.4;
/** Longest answer, in characters; later sentences are left out. */
const MAX_ANSWER_LENGTH = 1600;

/**
 * What a part of a question is about, for the parts after it that refer back ("it"): its names and
 * codes ("Kestrel 9"), or all its words when it has none.
 */
function subjectWords(part: string): string[] {
  const names = (part.match(/[\p{L}\p{N}][\p{L}\p{N}.-]*/gu) ?? [])
    .slice(1)
    .filter((word) => /^\p{Lu}|\d/u.test(word));
  const words = contentWords(names.join(' '));
  return words.length > 0 ? words : contentWords(part);
}

/** The marker goes before a final full stop: "… in 2024 [1]." */
function cite(pick: Pick): string {
  const sentence = pick.sentence.trim().replace(/\[\d+(?:\s*,\s*\d+)*\]/g, '');
  const match = /^(.*?)([.!?]*)$/s.exec(sentence);
  const body = (match?.[1] ?? sentence).replace(/[\s,;:]+$/, '');
  const end = match?.[2] === '' || match?.[2] === undefined ? '.' : match[2];
  return `${body} [${pick.source}]${end}`;
}

/**
 * Each source's best sentence for a part: the most words of the part (plus a third for each word
 * of `context`), with at least `coverage` of the part's own words; best first.
 */
function bestPerSource({
  sentences,
  own,
  context,
  coverage,
}: {
  sentences: readonly string[][];
  own: ReadonlySet<string>;
  context: ReadonlySet<string>;
  coverage: number;
}): Pick[] {
  const picks: Pick[] = [];
  sentences.forEach((candidates, index) => {
    let best: Pick | undefined;
    for (const sentence of candidates) {
      const words = new Set(contentWords(sentence));
      let matched = 0;
      for (const term of own) if (words.has(term)) matched += 1;
      if (matched === 0 || matched < coverage * own.size) continue;
      let score = matched;
      for (const term of context) if (words.has(term)) score += CONTEXT_WEIGHT;
      if (best === undefined || score > best.score) best = { source: index + 1, sentence, score };
    }
    if (best) picks.push(best);
  });
  return picks.sort((left, right) => right.score - left.score || left.source - right.source);
}

/** A part of the question restated for "I found nothing … that answers …". */
function quotePart(part: string): string {
  const text = part.trim().replace(/[?.!\s]+$/, '');
  return `“${text.charAt(0).toUpperCase()}${text.slice(1)}?”`;
}

/**
 * The offline answer (docs/architecture.md §8), as prose: the pages' own sentences, each cited
 * `[n]`, joined into one paragraph. The question is split into its parts (`splitQuestion`). A
 * question of one part gets, for each source, the sentence of its page text (or snippet) that
 * shares the most words with the question, best sources first, at most four, in source order. A
 * question of several parts is answered part by part, in order: for each, the best sentence of
 * each source (counting the earlier parts' subjects, their names, a third, and only sentences with 40% of the
 * part's own words), at most two sentences per part (the second within 70% of the best's score and naming the
 * earlier parts' subjects as the best does), none quoted twice; a part no sentence answers
 * is named ("I found nothing on the pages that answers “…?”"). The answer stops at 1600
 * characters. When no sentence shares a word, the top results' snippets are quoted and the answer
 * says the pages may not answer the question. No model, no invented text.
 *
 * @example
 * composeExtractiveAnswer({ question: 'When was Node 22 released?', query, materials }).text;
 * // 'Node.js 22 was released on 24 April 2024 [1].'
 */
export function composeExtractiveAnswer({
  question,
  query,
  materials,
}: {
  question: string;
  /** What was searched, for the answer when nothing was found; undefined when pages were read. */
  query: string | undefined;
  materials: readonly SourceMaterial[];
}): WebAnswer {
  const sources = materials.map((material) => material.source);
  const sentences = materials.map((material) =>
    splitSentences(`${material.source.snippet}\n${material.text}`),
  );
  const parts = splitQuestion(question);
  const several = parts.length > 1;
  const quoted: string[] = [];
  const used = new Set<string>();
  let answeredParts = 0;
  let length = 0;
  const add = (pick: Pick) => {
    const text = cite(pick);
    if (length > 0 && length + text.length > MAX_ANSWER_LENGTH) return;
    used.add(pick.sentence);
    quoted.push(text);
    length += text.length + 1;
  };
  parts.forEach((part, index) => {
    const own = new Set(contentWords(part));
    // "who built it" refers back: the earlier parts' subjects say what "it" is.
    const context = new Set(
      parts
        .slice(0, index)
        .flatMap(subjectWords)
        .filter((word) => !own.has(word)),
    );
    const picks = bestPerSource({
      sentences,
      own,
      context: several ? context : new Set(),
      coverage: several ? PART_COVERAGE : 0,
    });
    if (picks.length === 0) {
      if (several) quoted.push(`I found nothing on the pages that answers ${quotePart(part)}`);
      return;
    }
    answeredParts += 1;
    if (!several) {
      for (const pick of picks.slice(0, MAX_QUOTED).sort((a, b) => a.source - b.source)) add(pick);
      return;
    }
    // The best sentence was quoted for an earlier part: it answers this one too.
    if (used.has(picks[0]?.sentence ?? '')) return;
    // Another rocket's maker is not this one's: a further sentence names the subject as the best.
    const names = (pick: Pick) => contentWords(pick.sentence).filter((word) => context.has(word));
    const best = picks[0] ?? { source: 0, sentence: '', score: 0 };
    const subject = new Set(names(best)).size;
    const further = picks.filter(
      (entry, position) =>
        !used.has(entry.sentence) &&
        (position === 0 ||
          (entry.score >= MULTI_PART_FOCUS * best.score && new Set(names(entry)).size >= subject)),
    );
    for (const pick of further.slice(0, PER_PART)) add(pick);
  });

  if (answeredParts === 0) {
    const openings = materials
      .slice(0, 3)
      .map((material, index) => ({
        source: index + 1,
        sentence: (splitSentences(material.source.snippet)[0] ?? material.source.snippet).trim(),
        score: 0,
      }))
      .filter((pick) => pick.sentence !== '');
    if (openings.length === 0) {
      return {
        text:
          query === undefined
            ? 'The pages had no readable text.'
            : `The web search for "${query}" found nothing to answer with.`,
        sources: [],
        answeredBy: 'extractive',
      };
    }
    const text = `The pages found may not answer this directly; they open with: ${openings.map(cite).join(' ')}`;
    return { ...keepCitedSources({ text, sources }), answeredBy: 'extractive' };
  }
  return {
    ...keepCitedSources({ text: quoted.join(' '), sources }),
    answeredBy: 'extractive',
  };
}
