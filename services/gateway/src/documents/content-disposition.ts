/** The longest filename a `Content-Disposition` header carries, in characters. */
const MAX_FILENAME_CHARS = 200;

/** RFC 5987 `attr-char`: what `filename*` may carry without percent-encoding. */
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_`|~]/;

/**
 * A filename fit for a header: no directories, no control or format characters (CR and LF
 * would split the header; bidirectional overrides disguise an extension), no leading dots or
 * surrounding spaces, at most {@link MAX_FILENAME_CHARS} characters; `document` when nothing is
 * left.
 *
 * @example
 * cleanFilename('../../etc/pass\r\nwd.txt'); // 'passwd.txt'
 */
export function cleanFilename(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const cleaned = Array.from(base.normalize('NFC').replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ''))
    .slice(0, MAX_FILENAME_CHARS)
    .join('')
    .trim()
    .replace(/^\.+/, '')
    .trim();
  return cleaned === '' ? 'document' : cleaned;
}

function encodeExtended(value: string): string {
  let encoded = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const character = String.fromCharCode(byte);
    encoded +=
      byte < 0x80 && ATTR_CHAR.test(character)
        ? character
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

/**
 * A `Content-Disposition` value (RFC 6266) for a download: the cleaned filename
 * ({@link cleanFilename}) as a quoted ASCII `filename` (other characters, quotes and backslashes
 * become `_`), and, when that lost anything, the exact name as `filename*=UTF-8''…` (RFC 8187),
 * which browsers prefer.
 *
 * @example
 * contentDisposition({ type: 'attachment', filename: 'Übersicht 2026.html' });
 * // attachment; filename="_bersicht 2026.html"; filename*=UTF-8''%C3%9Cbersicht%202026.html
 */
export function contentDisposition({
  type,
  filename,
}: {
  type: 'attachment' | 'inline';
  filename: string;
}): string {
  const name = cleanFilename(filename);
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const header = `${type}; filename="${ascii}"`;
  return ascii === name ? header : `${header}; filename*=UTF-8''${encodeExtended(name)}`;
}
