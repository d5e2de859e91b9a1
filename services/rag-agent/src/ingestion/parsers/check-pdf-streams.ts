import { inflateBounded } from '../archive';
import { DocumentLimitError } from '../document-limit-error';
import { LIMIT_NAMES, RATIO_GRACE_BYTES, type IngestLimits } from '../limits';

const STREAM = Buffer.from('stream', 'latin1');
const END_STREAM = Buffer.from('endstream', 'latin1');
const OBJ = Buffer.from(' obj', 'latin1');
/** How far back from `stream` a stream's dictionary is looked for. */
const DICTIONARY_WINDOW = 4096;

const MiB = 1024 * 1024;

function formatSize(bytes: number): string {
  return bytes >= MiB ? `${Math.round((bytes / MiB) * 10) / 10} MiB` : `${bytes} bytes`;
}

/**
 * Measures, before pdf.js reads anything, what a PDF's FlateDecode streams inflate to, and refuses
 * a PDF bomb: a stream that inflates to more than `maxEntryBytes`, or past 1 MiB more than
 * `maxCompressionRatio` times its compressed size, or streams that together inflate to more than
 * `maxUnpackedBytes`. Images are skipped (text extraction never decodes them; pictures are large
 * by nature); content streams, fonts and object streams are what pdf.js inflates. Each stream is
 * inflated in a stream and thrown away as it goes, so this costs time, not memory. A stream that
 * does not inflate (encrypted, damaged) is left to pdf.js.
 *
 * @throws {@link DocumentLimitError} (413) naming the limit crossed.
 */
export async function checkPdfStreams(
  bytes: Uint8Array,
  { filename, limits }: { filename: string; limits: IngestLimits },
): Promise<void> {
  const pdf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  let position = 0;
  for (;;) {
    const keyword = pdf.indexOf(STREAM, position);
    if (keyword < 0) return;
    position = keyword + STREAM.length;
    // `endstream` contains `stream`; so does a name like /XStream.
    const before = pdf[keyword - 1];
    if (before === undefined || /[A-Za-z/]/.test(String.fromCharCode(before))) continue;
    // The keyword ends its line (CR LF or LF); the data starts on the next.
    let start = keyword + STREAM.length;
    if (pdf[start] === 0x0d) start++;
    if (pdf[start] === 0x0a) start++;
    if (start === keyword + STREAM.length) continue;
    const objectStart = pdf.lastIndexOf(OBJ, keyword);
    const dictionary = pdf
      .subarray(Math.max(objectStart, keyword - DICTIONARY_WINDOW, 0), keyword)
      .toString('latin1');
    const end = pdf.indexOf(END_STREAM, start);
    const data = pdf.subarray(start, end < 0 ? pdf.length : end);
    position = start + data.length;
    if (!/\/FlateDecode\b/.test(dictionary) || /\/Subtype\s*\/Image\b/.test(dictionary)) continue;
    const byRatio = Math.max(RATIO_GRACE_BYTES, limits.maxCompressionRatio * data.length);
    const left = limits.maxUnpackedBytes - total;
    const bound = Math.min(limits.maxEntryBytes, byRatio, left);
    const inflated = await inflateBounded(data, { maxBytes: bound, zlib: true, output: 'count' });
    total += inflated.size;
    if (!inflated.exceeded) continue;
    const object = /(\d+)\s+(\d+)\s*$/.exec(
      pdf.subarray(Math.max(0, objectStart - 24), Math.max(0, objectStart)).toString('latin1'),
    );
    const entry = object ? `object ${object[1]} ${object[2]}` : `the stream at byte ${keyword}`;
    if (bound === byRatio) {
      throw new DocumentLimitError(
        `Cannot index "${filename}": its compressed stream (${entry}) inflates more than ${limits.maxCompressionRatio} to 1 (${LIMIT_NAMES.maxCompressionRatio}); PDF bombs are built that way.`,
        { filename, limit: 'maxCompressionRatio', max: limits.maxCompressionRatio, entry },
      );
    }
    if (bound === left) {
      throw new DocumentLimitError(
        `Cannot index "${filename}": its compressed streams inflate to more than ${formatSize(limits.maxUnpackedBytes)} (${LIMIT_NAMES.maxUnpackedBytes}).`,
        { filename, limit: 'maxUnpackedBytes', max: limits.maxUnpackedBytes, entry },
      );
    }
    throw new DocumentLimitError(
      `Cannot index "${filename}": its compressed stream (${entry}) inflates to more than ${formatSize(limits.maxEntryBytes)} (${LIMIT_NAMES.maxEntryBytes}).`,
      { filename, limit: 'maxEntryBytes', max: limits.maxEntryBytes, entry },
    );
  }
}
