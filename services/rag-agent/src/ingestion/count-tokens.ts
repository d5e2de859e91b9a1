import { Tiktoken } from 'js-tiktoken/lite';
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';

/**
 * Runs that cl100k's pre-tokenizer keeps as one piece however long they are: letters,
 * punctuation, whitespace. Byte-pair merging is quadratic in a piece's length (16,000 letters
 * take half a minute in js-tiktoken), so longer runs are counted in slices of this many characters.
 */
const SLICE = 64;
const LONG_RUN = new RegExp(
  `\\p{L}{${SLICE + 1},}|[^\\s\\p{L}\\p{N}]{${SLICE + 1},}|\\s{${SLICE + 1},}`,
  'gu',
);

let encoder: Tiktoken | undefined;

/** The cl100k encoder, built on first use: its rank table takes a moment to load. */
function cl100k(): Tiktoken {
  encoder ??= new Tiktoken(cl100kBase);
  return encoder;
}

function encodedLength(text: string): number {
  return text === '' ? 0 : cl100k().encode(text, [], []).length;
}

/**
 * Counts cl100k_base tokens (the OpenAI embedding models' tokenizer) in `text`. Special-token
 * strings such as `<|endoftext|>` count as ordinary text: documents may contain them.
 *
 * Exact for natural text. A run of more than 64 letters, punctuation marks or spaces in a row
 * (a hex dump, a line of `=====`) is counted in 64-character slices, which can overcount by about
 * a token per slice but keeps the count linear in the text's length.
 *
 * @param text - Any text.
 * @returns The number of tokens.
 */
export function countTokens(text: string): number {
  let total = 0;
  let last = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    total += encodedLength(text.slice(last, match.index));
    const points = Array.from(match[0]);
    for (let start = 0; start < points.length; start += SLICE) {
      total += encodedLength(points.slice(start, start + SLICE).join(''));
    }
    last = match.index + match[0].length;
  }
  return total + encodedLength(text.slice(last));
}
