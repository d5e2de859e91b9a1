const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

/** ICU breaks after these; a sentence does not end at "Dr." or "e.g.". */
const ABBREVIATION =
  /(?:^|[\s(])(?:mr|mrs|ms|dr|prof|sr|jr|st|vs|etc|e\.g|i\.e|no|fig|inc|ltd|co|corp|approx|dept|eq|cf|al|vol|pp)\.\s*$/i;

/** A sentence end and the space before a number (or a quote or bracket and a number). */
const BEFORE_NUMBER = /(?<=[.!?])\s+(?=["'“([]?\p{N})/gu;

/** Options for {@link segmentSentences}. */
export interface SegmentSentencesOptions {
  /**
   * Sentences that are quoted on their own (extractive answers): mend two more of ICU's choices.
   * End a sentence at `.`, `!` or `?` before a number, unless after a common abbreviation ("… the
   * eu-west region. 312 customers were affected": ICU looks past the number, finds a lower-case
   * word and keeps going); and do not end one at a `?` or `!` with no space after it (`?q=` in a
   * URL, `!=`). @default false (ICU's breaks, as the RAG agent's chunks are cut)
   */
  quoting?: boolean;
}

/** True when `text` ends with a common abbreviation and its full stop ("Dr.", "e.g."). */
function endsWithAbbreviation(text: string): boolean {
  // Only the tail matters; testing all of the text would be quadratic on "No. No. No. …".
  return ABBREVIATION.test(text.trimEnd().slice(-12));
}

/** The sentence cut where a sentence end is followed by a number. */
function splitBeforeNumbers(sentence: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (const match of sentence.matchAll(BEFORE_NUMBER)) {
    const head = sentence.slice(start, match.index);
    if (endsWithAbbreviation(head)) continue;
    parts.push(head.trim());
    start = match.index + match[0].length;
  }
  parts.push(sentence.slice(start).trim());
  return parts;
}

/**
 * Splits prose into sentences with `Intl.Segmenter` (ICU's rules, so "3.2", "U.S." and "e.g. at"
 * stay whole and CJK full stops end sentences), mending the breaks ICU makes after common
 * abbreviations ("Dr. Jones"). A line break ends a sentence too (ICU reads it as a paragraph
 * separator). Each sentence is trimmed; blank ones are dropped.
 *
 * The RAG agent chunks documents by these sentences; both agents' extractive answers (the offline
 * counterpart of {@link answerWithSources}) quote them.
 *
 * @param options - `quoting`: sentences to quote on their own (mends two more of ICU's breaks).
 * @example
 * segmentSentences('Mr. Smith met Dr. Jones, e.g. at lunch. The U.S. grew 2.1% in Q3!');
 * // ['Mr. Smith met Dr. Jones, e.g. at lunch.', 'The U.S. grew 2.1% in Q3!']
 */
export function segmentSentences(
  text: string,
  { quoting = false }: SegmentSentencesOptions = {},
): string[] {
  const result: string[] = [];
  const push = (sentence: string): void => {
    if (sentence.trim() === '') return;
    if (quoting) result.push(...splitBeforeNumbers(sentence.trim()));
    else result.push(sentence.trim());
  };
  let pending = '';
  for (const { segment } of sentences.segment(text)) {
    pending += segment;
    // ICU takes the spaces after a sentence end into its segment: a segment that ends on the
    // mark itself is followed by more text at once ("?q=") or by nothing.
    if (quoting && /[?!]$/.test(segment)) continue;
    if (!endsWithAbbreviation(pending)) {
      push(pending);
      pending = '';
    }
  }
  push(pending);
  return result;
}
