const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/**
 * Counts the objects and arrays in JSON text (its `{` and `[` outside strings) without parsing
 * it, stopping once the count passes `stopAfter`. A byte scan that jumps from quote to quote
 * inside strings (`indexOf`), so it costs a few milliseconds for megabytes of text and allocates
 * nothing: a body can be refused for its shape before `JSON.parse` builds millions of objects.
 * Malformed JSON is counted all the same; the parser refuses it afterwards.
 *
 * @returns the count, or a number above `stopAfter` as soon as it is passed
 * @example
 * countJsonContainers(Buffer.from('{"a":[1,{}]}')); // 3
 */
export function countJsonContainers(
  bytes: Uint8Array,
  stopAfter: number = Number.POSITIVE_INFINITY,
): number {
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const length = buffer.length;
  let count = 0;
  let index = 0;
  while (index < length) {
    const byte = buffer[index];
    if (byte === QUOTE) {
      // The string's end: the next quote not escaped by an odd run of backslashes.
      let end = buffer.indexOf(QUOTE, index + 1);
      while (end !== -1) {
        let backslashes = 0;
        while (buffer[end - 1 - backslashes] === BACKSLASH) backslashes += 1;
        if (backslashes % 2 === 0) break;
        end = buffer.indexOf(QUOTE, end + 1);
      }
      if (end === -1) return count;
      index = end + 1;
      continue;
    }
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      count += 1;
      if (count > stopAfter) return count;
    }
    index += 1;
  }
  return count;
}
