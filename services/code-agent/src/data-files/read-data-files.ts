import { PayloadTooLargeError, ValidationError } from '@fleet/errors';
import type { Part } from '@fleet/a2a';
import { formatBytes, isSafeDataFileName, mediaTypeOf, type DataFile } from '../sandbox';
import { cleanDataFileName } from './clean-data-file-name';

/** How many files, and how many bytes in all, a step may bring to `/data`. */
export interface DataFileLimits {
  maxFiles: number;
  maxTotalBytes: number;
}

/**
 * The defaults: 16 files, 4 MiB in all. The A2A body limit of the code agent is set from the
 * byte budget (base64 makes it a third larger).
 */
export const DEFAULT_DATA_FILE_LIMITS: DataFileLimits = {
  maxFiles: 16,
  maxTotalBytes: 4 * 1024 * 1024,
};

/** Base64 (standard or URL-safe alphabet), padded or not. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
/** A plain media type (`type/subtype`). */
const MEDIA_TYPE = /^[\w.+-]{1,60}\/[\w.+-]{1,80}$/;

/** A size for a message: `formatBytes`, with the exact count when that rounds (`1 KiB (1200 bytes)`). */
function sizeText(bytes: number): string {
  const rounded = formatBytes(bytes);
  const exact =
    bytes < 1024 || (bytes < 1024 * 1024 && bytes % 1024 === 0) || bytes % (1024 * 1024) === 0;
  return exact ? rounded : `${rounded} (${bytes} bytes)`;
}

/** Whether a part is a file: raw bytes or a URL (text and data parts are not). */
export function isFilePart(part: Part): boolean {
  return part.raw !== undefined || part.url !== undefined;
}

/**
 * The step's own files from the file parts of its input message, for the program at
 * `/data/<name>`: only `raw` (base64) bytes are read, with `filename` (cleaned by
 * `cleanDataFileName`: base name, no `..`, no leading dot, bounded, unique) and `mediaType`
 * (its `type/subtype`, else guessed from the name). A part with a `url` is refused, never
 * fetched.
 *
 * @throws PayloadTooLargeError (PAYLOAD_TOO_LARGE) with more than `maxFiles` file parts or more
 *   than `maxTotalBytes` in all; ValidationError (VALIDATION_FAILED) for a `url` part or bytes that
 *   are not base64. Nothing is written either way.
 * @example
 * const files = readDataFiles(message.parts, DEFAULT_DATA_FILE_LIMITS);
 */
export function readDataFiles(
  parts: readonly Part[],
  { maxFiles, maxTotalBytes }: DataFileLimits,
): DataFile[] {
  const fileParts = parts.filter(isFilePart);
  if (fileParts.length > maxFiles) {
    throw new PayloadTooLargeError(
      `The step was given ${fileParts.length} files; the code agent takes at most ${maxFiles} files for /data. Nothing was run.`,
      { details: { files: fileParts.length, maxFiles } },
    );
  }
  const linked = fileParts.find((part) => part.raw === undefined);
  if (linked !== undefined) {
    throw new ValidationError(
      `The file part ${JSON.stringify((linked.filename ?? linked.url ?? '').slice(0, 200))} has a url; the code agent reads only file parts with their bytes inline (raw, base64) and does not fetch URLs. Nothing was run.`,
    );
  }
  const encoded = fileParts.map((part, index) => {
    const raw = (part.raw ?? '').replace(/\s+/g, '');
    if (!BASE64.test(raw)) {
      throw new ValidationError(
        `The file part ${JSON.stringify((part.filename ?? `#${index + 1}`).slice(0, 200))} is not base64 (raw). Nothing was run.`,
      );
    }
    return raw;
  });
  // Counted before decoding: 3 bytes per 4 characters, less the padding.
  const total = encoded.reduce(
    (sum, raw) =>
      sum + Math.floor((raw.length * 3) / 4) - (raw.length - raw.replace(/=+$/, '').length),
    0,
  );
  if (total > maxTotalBytes) {
    throw new PayloadTooLargeError(
      `The step's files hold ${sizeText(total)}; the code agent takes at most ${sizeText(maxTotalBytes)} in all for /data. Nothing was run.`,
      { details: { totalBytes: total, maxTotalBytes } },
    );
  }
  const taken = new Set<string>();
  const files = fileParts.map((part, index): DataFile => {
    const bytes = Buffer.from(encoded[index] ?? '', 'base64');
    const name = cleanDataFileName(part.filename, { index, taken });
    // The type without parameters (`text/csv; charset=utf-8` → `text/csv`), if it is a plain one.
    const given = (part.mediaType ?? '').split(';')[0]?.trim() ?? '';
    const mediaType = MEDIA_TYPE.test(given) ? given.toLowerCase() : mediaTypeOf(name);
    return { name, mediaType, bytes };
  });
  // cleanDataFileName guarantees this; the sandbox checks again before writing.
  if (!files.every((file) => isSafeDataFileName(file.name))) {
    throw new ValidationError('A data file name could not be made safe. Nothing was run.');
  }
  return files;
}
