/**
 * The first `length` characters of `text`, with `…` after them when it is longer.
 *
 * @example
 * head('abcdef', 3); // 'abc…'
 */
export function head(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length)}…`;
}

/**
 * The last `length` characters of `text`, with `…` before them when it is longer.
 *
 * @example
 * tail('abcdef', 3); // '…def'
 */
export function tail(text: string, length: number): string {
  return text.length <= length ? text : `…${text.slice(-length)}`;
}

/**
 * `text` on one line (runs of white space become one space), at most `length` characters with
 * the `…` included.
 *
 * @example
 * shorten('Plot  the\nrevenue', 10); // 'Plot the …'
 */
export function shorten(text: string, length: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= length ? flat : `${flat.slice(0, length - 1)}…`;
}
