/** How many leading bytes decide whether a file is text. */
const SNIFF_BYTES = 8192;

/** Text decoded from a file, or `undefined` when the bytes are not text. */
export interface DecodedText {
  text: string;
  /** The encoding used: `utf-8`, `utf-16le`, `utf-16be`, or `windows-1252` for legacy 8-bit files. */
  encoding: string;
}

/**
 * Windows-1252 bytes 0x80–0x9F (curly quotes, dashes, €); the rest of the code page is Latin-1.
 * Spelled out because Node's TextDecoder decodes `windows-1252` as plain Latin-1.
 */
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\u0080-\u009f]/g, (character) => CP1252_HIGH[character.charCodeAt(0) - 0x80] ?? '');
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((value, index) => bytes[index] === value);
}

/** True when the text has NULs or is more than 5 % control characters: binary data, not text. */
function looksBinary(text: string): boolean {
  const sample = text.slice(0, SNIFF_BYTES);
  let control = 0;
  for (let index = 0; index < sample.length; index++) {
    const code = sample.charCodeAt(index);
    if (code === 0) return true;
    // Tab, LF, VT, FF and CR are ordinary in text files; \u001a is the DOS end-of-file marker.
    if (code < 32 && !(code >= 9 && code <= 13) && code !== 26) control++;
  }
  return sample.length > 0 && control / sample.length > 0.05;
}

/**
 * Decodes a text file: UTF-8 (with or without BOM), UTF-16 with a BOM, and, for files that are
 * not valid UTF-8 but still look like text, Windows-1252 (what older Windows tools write).
 *
 * @param bytes - The file's bytes.
 * @returns The text without a BOM, or `undefined` for binary data.
 */
export function decodeText(bytes: Uint8Array): DecodedText | undefined {
  let decoded: DecodedText;
  if (startsWith(bytes, [0xff, 0xfe])) {
    decoded = { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le' };
  } else if (startsWith(bytes, [0xfe, 0xff])) {
    decoded = { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be' };
  } else {
    try {
      // ignoreBOM: false (the default) drops a UTF-8 BOM.
      decoded = {
        text: new TextDecoder('utf-8', { fatal: true }).decode(bytes),
        encoding: 'utf-8',
      };
    } catch {
      decoded = { text: decodeWindows1252(bytes), encoding: 'windows-1252' };
    }
  }
  return looksBinary(decoded.text) ? undefined : decoded;
}
