import { isStopword, words } from '../text';

/** Most terms a keyword query keeps. */
const MAX_TERMS = 24;

/**
 * The question as a full-text query for the store's `websearch_to_tsquery`: its content words,
 * lower-cased, joined with `or`. `websearch_to_tsquery` joins plain words with AND, so a natural
 * question ("How many vacation days do employees get?") would only match a chunk holding every
 * word; with `or` any chunk holding some of them matches and `ts_rank_cd` ranks those holding more
 * (and closer together) first. Punctuation is dropped so that nothing reads as query syntax
 * (`-word`, quotes). A question of stopwords only is returned as it is.
 *
 * @example
 * keywordQuery('How many vacation days do full-time employees get?');
 * // 'vacation or days or full or time or employees'
 */
export function keywordQuery(question: string): string {
  const terms: string[] = [];
  for (const word of words(question)) {
    for (const part of word.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
      if (part === '' || isStopword(part) || terms.includes(part)) continue;
      terms.push(part);
    }
  }
  return terms.length === 0 ? question : terms.slice(0, MAX_TERMS).join(' or ');
}
