import { segmentSentences } from '@fleet/llm';
import { countTokens } from '../count-tokens';

/**
 * Packs parts greedily into pieces of about `budget` tokens at most, joined by `separator`. Each
 * part must fit alone. A piece is judged by the sum of its parts' counts, which is within a token
 * or two of the joined text's count (cl100k splits on whitespace first), so nothing is re-encoded;
 * callers leave that much margin.
 */
export function pack({
  parts,
  separator,
  budget,
}: {
  parts: readonly { text: string; tokens: number }[];
  separator: string;
  budget: number;
}): string[] {
  const separatorTokens = countTokens(separator);
  const pieces: string[] = [];
  let current: string[] = [];
  let tokens = 0;
  for (const part of parts) {
    if (current.length > 0 && tokens + separatorTokens + part.tokens > budget) {
      pieces.push(current.join(separator));
      current = [];
      tokens = 0;
    }
    tokens += (current.length > 0 ? separatorTokens : 0) + part.tokens;
    current.push(part.text);
  }
  if (current.length > 0) pieces.push(current.join(separator));
  return pieces;
}

/**
 * Cuts text with no usable break into pieces of at most `budget` tokens, on code-point boundaries.
 *
 * Linear in the text's length: each piece is guessed from the characters-per-token ratio seen so
 * far and shrunk until it fits, so it costs one or two counts of a budget-sized slice. (A binary
 * search over the prefix counted ~11,000 characters a dozen times per piece: a megabyte of base64
 * took minutes and blocked the agent.)
 */
export function splitByTokens(text: string, budget: number): string[] {
  const points = Array.from(text);
  const pieces: string[] = [];
  const limit = Math.max(budget, 1);
  let charsPerToken = 3;
  let start = 0;
  while (start < points.length) {
    let length = Math.max(1, Math.min(points.length - start, Math.floor(limit * charsPerToken)));
    let tokens = countTokens(points.slice(start, start + length).join(''));
    while (tokens > limit && length > 1) {
      length = Math.max(1, Math.min(length - 1, Math.floor((length * limit * 0.95) / tokens)));
      tokens = countTokens(points.slice(start, start + length).join(''));
    }
    pieces.push(points.slice(start, start + length).join(''));
    if (tokens > 0) charsPerToken = Math.max(1, length / tokens);
    start += length;
  }
  return pieces;
}

/** Splits a run of words into pieces of at most `budget` tokens, words kept whole where they fit. */
export function splitWords(text: string, budget: number): string[] {
  const parts = text
    .split(/\s+/)
    .filter((word) => word !== '')
    .flatMap((word) => {
      const tokens = countTokens(` ${word}`);
      return tokens <= budget
        ? [{ text: word, tokens }]
        : splitByTokens(word, budget).map((piece) => ({ text: piece, tokens: budget }));
    });
  return pack({ parts, separator: ' ', budget });
}

/**
 * Splits prose into pieces of at most `budget` tokens: whole sentences where they fit (ICU's
 * sentences, common abbreviations mended: `segmentSentences`), a sentence too long for one piece
 * by words, a word too long by tokens.
 */
export function splitProse(text: string, budget: number): string[] {
  const parts = segmentSentences(text).flatMap((sentence) => {
    const tokens = countTokens(sentence);
    return tokens <= budget
      ? [{ text: sentence, tokens }]
      : splitWords(sentence, budget).map((piece) => ({ text: piece, tokens: countTokens(piece) }));
  });
  return pack({ parts, separator: ' ', budget });
}
