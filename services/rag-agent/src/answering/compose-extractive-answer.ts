import { chunkBody, type Retrieval } from '../retrieval';
import type { Answer } from './answer';
import { groupSources, keepCitedSources } from './group-sources';
import { contentTerms, removePhrases, shorten, splitSentences } from '../text';

/** Options for {@link composeExtractiveAnswer}. */
export interface ComposeExtractiveAnswerOptions {
  question: string;
  retrieval: Retrieval;
  /** Most sentences quoted. @default 4 */
  maxSentences?: number;
}

/** Most sentences quoted from one source. */
const PER_SOURCE = 2;
/** Longest sentence quoted, in characters. */
const MAX_SENTENCE_LENGTH = 400;
/** Longest heading put before a quoted sentence, in characters. */
const MAX_HEADING_LENGTH = 80;
/** How much a question term found only in the section's headings counts, against the sentence. */
const HEADING_WEIGHT = 0.5;
/** Score lost per rank of the sentence's source (the retrieval's order is evidence too). */
const SOURCE_RANK_PENALTY = 0.06;
/** Below this retrieval confidence the lead line warns that the passages may not answer. */
const LOW_CONFIDENCE = 0.3;

const WANTS_NUMBER =
  /\b(how\s+(many|much|long|often|old)|when|what\s+(year|date|time|day|price|percentage|number)|price|cost|fee|limit|deadline|date|amount|number)\b/i;

interface Candidate {
  sentence: string;
  /** The last heading of the sentence's section, `''` for none. */
  heading: string;
  /** Content terms of the whole heading trail. */
  headingTerms: ReadonlySet<string>;
  source: number;
  /** Position among all candidates, for stable ordering. */
  order: number;
  score: number;
}

/** The standard answers when nothing was found. */
export function emptyAnswerText(retrieval: Pick<Retrieval, 'documents'>): string {
  return retrieval.documents === 0
    ? 'There are no documents in this library yet, so there is nothing to answer from.'
    : 'I found nothing about this in the documents.';
}

/**
 * The sentence with its section's heading in front when the heading adds something the sentence
 * does not say: `Beacon 4.1 (4 November 2025): SAML single sign-on for the Professional plan`.
 */
function withHeading(candidate: Candidate): string {
  if (candidate.heading === '') return candidate.sentence;
  const terms = new Set(contentTerms(candidate.sentence));
  const headingTerms = contentTerms(candidate.heading);
  if (headingTerms.length === 0 || headingTerms.every((term) => terms.has(term))) {
    return candidate.sentence;
  }
  return `${candidate.heading.replace(/[.:;,\s]+$/, '')}: ${candidate.sentence}`;
}

/** Puts the marker before the sentence's closing punctuation: `It costs 12 EUR [1].` */
function cite(sentence: string, source: number): string {
  // The document's own bracketed numbers would read as citations.
  const text = shorten(sentence.replace(/\[\d+(?:\s*,\s*\d+)*\]/g, ''), MAX_SENTENCE_LENGTH);
  const match = /^(.*?)([.!?…]*)$/s.exec(text);
  const body = (match?.[1] ?? text).replace(/[\s,;:]+$/, '');
  const end = match?.[2] === '' || match?.[2] === undefined ? '.' : match[2];
  return `${body} [${source}]${end}`;
}

/**
 * The offline answer (docs/architecture.md §8: answers composed from the results, no model): a lead
 * line, then the sentences of the best sources that share the most (rarer) words with the
 * question, each followed by its `[n]` and led by its section's heading when that adds context.
 * Sentences are scored by the inverse-document-frequency weight of the question terms they
 * contain (terms found only in the section's headings count half; the phrases that became filters
 * do not count), plus a bonus for consecutive question terms, for numbers when the question asks
 * for one, and for better-ranked sources; at most two per source
 * and `maxSentences` in all. When no sentence shares a word with the question, the best source's
 * opening sentence stands in, and the lead line says the documents may not answer the question.
 * Only the cited sources are kept, numbered in retrieval order.
 *
 * @example
 * composeExtractiveAnswer({ question: 'How many leave days?', retrieval }).text;
 * // 'From the documents:\n- Employees get 28 days of paid leave a year [1].'
 */
export function composeExtractiveAnswer({
  question,
  retrieval,
  maxSentences = 4,
}: ComposeExtractiveAnswerOptions): Answer {
  const { sources, groups, chunks } = groupSources(retrieval.chunks);
  const base = {
    sources,
    confidence: retrieval.confidence,
    chunks,
    answeredBy: 'extractive' as const,
  };
  const note = retrieval.filters.note === undefined ? '' : `${retrieval.filters.note}\n`;
  if (sources.length === 0) return { ...base, text: `${note}${emptyAnswerText(retrieval)}` };

  // The phrases that became search filters ("in the PDF") say where to look, not what to find.
  const queryTerms = [
    ...new Set(contentTerms(removePhrases(question, retrieval.filters.mentions))),
  ];
  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  groups.forEach((group, index) => {
    for (const chunk of group) {
      const trail = chunk.section.split(' > ').filter((heading) => heading.trim() !== '');
      const heading = shorten(trail.at(-1) ?? '', MAX_HEADING_LENGTH);
      const headingTerms = new Set(contentTerms(trail.join(' ')));
      // A heading with a number the question does not have often states a fact itself:
      // "Beacon 4.2 (10 February 2026)" answers "When was 4.2 released?".
      const factualHeading = contentTerms(heading).some(
        (term) => /\d/.test(term) && !queryTerms.includes(term),
      )
        ? [heading]
        : [];
      for (const sentence of [...factualHeading, ...splitSentences(chunkBody(chunk))]) {
        const key = sentence.toLowerCase();
        if (seen.has(key) || sentence.length < 3) continue;
        seen.add(key);
        candidates.push({
          sentence,
          heading: sentence === heading ? '' : heading,
          headingTerms,
          source: index + 1,
          order: candidates.length,
          score: 0,
        });
      }
    }
  });

  // Inverse document frequency over the candidate sentences: a term every sentence has (the
  // product's name) says little; a rare one ("parental") says a lot.
  const sentenceTerms = candidates.map((candidate) => contentTerms(candidate.sentence));
  const frequency = new Map<string, number>();
  for (const terms of sentenceTerms) {
    for (const term of new Set(terms)) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  }
  const weight = (term: string) =>
    Math.log(1 + candidates.length / (1 + (frequency.get(term) ?? 0)));
  const wantsNumber = WANTS_NUMBER.test(question);
  candidates.forEach((candidate, index) => {
    const terms = sentenceTerms[index] ?? [];
    const present = new Set(terms);
    let score = 0;
    let inSentence = false;
    for (const term of queryTerms) {
      if (present.has(term)) {
        score += weight(term);
        inSentence = true;
      } else if (candidate.headingTerms.has(term)) {
        // The section's heading says what the sentence is about ("Parental leave", "Beacon 4.1").
        score += HEADING_WEIGHT * weight(term);
      }
    }
    if (!inSentence) return;
    for (let position = 0; position + 1 < queryTerms.length; position++) {
      const pair = `${queryTerms[position]} ${queryTerms[position + 1]}`;
      if (` ${terms.join(' ')} `.includes(` ${pair} `)) score += 0.5;
    }
    if (wantsNumber && /\d/.test(candidate.sentence)) score *= 1.25;
    // Very long sentences match by volume; short headings match without saying anything.
    if (terms.length > 40) score *= 0.8;
    if (terms.length <= 2 && !/\d/.test(candidate.sentence)) score *= 0.5;
    candidate.score = score * (1 - SOURCE_RANK_PENALTY * Math.min(candidate.source - 1, 8));
  });

  const chosen: Candidate[] = [];
  const perSource = new Map<number, number>();
  const ranked = candidates
    .filter((candidate) => candidate.score > 0)
    .sort((left, right) => right.score - left.score || left.order - right.order);
  for (const candidate of ranked) {
    if (chosen.length >= maxSentences) break;
    const used = perSource.get(candidate.source) ?? 0;
    if (used >= PER_SOURCE) continue;
    // Keep the answer focused: stop at sentences far weaker than the best one.
    if (chosen.length > 0 && candidate.score < (chosen[0]?.score ?? 0) * 0.5) break;
    chosen.push(candidate);
    perSource.set(candidate.source, used + 1);
  }

  const matched = chosen.length > 0;
  if (!matched) {
    const opening = candidates.find((candidate) => candidate.source === 1);
    if (opening) chosen.push(opening);
  }
  const count = new Set(chosen.map((candidate) => candidate.source)).size;
  const lead =
    !matched || retrieval.confidence < LOW_CONFIDENCE
      ? 'The documents may not answer this directly; the closest passages say:'
      : `From the documents (${count} source${count === 1 ? '' : 's'}):`;
  const lines = chosen.map((candidate) => `- ${cite(withHeading(candidate), candidate.source)}`);
  return {
    ...base,
    ...keepCitedSources({ text: `${note}${lead}\n${lines.join('\n')}`, sources, chunks }),
  };
}
