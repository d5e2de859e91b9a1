import mammoth from 'mammoth';
import { FleetError } from '@fleet/errors';
import { DamagedArchiveError, ZipArchive } from '../archive';
import { DocumentParseError } from '../document-parse-error';
import type { IngestLimits } from '../limits';
import { htmlNestsDeeperThan } from '@fleet/worker-pool';
import { nestingTooDeep } from '../nesting-depth';
import { parseHtml } from './parse-html';
import type { ParsedBody } from './parsed-body';

/** Style-map lines added to mammoth's defaults (which map `Heading 1`…`6` to `h1`…`h6`). */
const STYLE_MAP = [
  "p[style-name='Title'] => p.doc-title:fresh",
  "p[style-name='Subtitle'] => p:fresh",
  "p[style-name='Heading 7'] => h6:fresh",
  "p[style-name='Heading 8'] => h6:fresh",
  "p[style-name='Heading 9'] => h6:fresh",
];

/** Images are not indexed; an empty `src` spares mammoth base64-encoding every picture. */
const DROP_IMAGES = mammoth.images.imgElement(() => Promise.resolve({ src: '' }));

/**
 * The archive as mammoth's zip-file interface (what its `{ file }` input takes): mammoth reads
 * the parts it needs through {@link ZipArchive}, within the limits, instead of unpacking with
 * JSZip, which inflates an entry whole whatever it holds.
 */
function mammothFile(archive: ZipArchive) {
  return {
    exists: (name: string): boolean => archive.has(name),
    read: async (name: string, encoding?: string): Promise<string | Uint8Array> => {
      const content = await archive.read(name);
      if (encoding === 'base64') return content.toString('base64');
      return encoding ? new TextDecoder(encoding).decode(content) : content;
    },
    write: (): never => {
      throw new Error('read-only archive');
    },
    toArrayBuffer: (): never => {
      throw new Error('read-only archive');
    },
  };
}

function invalidWordDocument(filename: string, error: unknown): DocumentParseError {
  return new DocumentParseError(
    filename,
    `Cannot read "${filename}": it is not a valid Word document (the file may be damaged or truncated).`,
    {
      cause: error,
      details: { reason: error instanceof Error ? error.message.slice(0, 200) : 'unknown' },
    },
  );
}

/**
 * Parses a Word document: mammoth turns it into HTML (heading styles become `h1`–`h6`, tables
 * stay tables, lists stay lists), which {@link parseHtml} reads. A paragraph in the `Title` style
 * is the title. The archive is read under `limits` (see {@link ZipArchive}): mammoth never
 * unpacks anything itself.
 *
 * @param options - The file's name (for errors), bytes and the limits.
 * @throws {@link DocumentParseError} when the file is not a readable .docx or nests too deep;
 *   `DocumentLimitError` when it unpacks to more than the limits allow.
 */
export async function parseDocx({
  filename,
  bytes,
  limits,
}: {
  filename: string;
  bytes: Uint8Array;
  limits: IngestLimits;
}): Promise<ParsedBody> {
  let html: string;
  try {
    const archive = ZipArchive.open(bytes, { filename, limits });
    // mammoth's typings list only the path and buffer inputs; it takes a zip file as `file`.
    const input = { file: mammothFile(archive) } as unknown as Parameters<
      typeof mammoth.convertToHtml
    >[0];
    const result = await mammoth.convertToHtml(input, {
      styleMap: STYLE_MAP,
      convertImage: DROP_IMAGES,
      // Never follow a document's links to files on this machine (mammoth's default, kept explicit).
      externalFileAccess: false,
    });
    html = result.value;
  } catch (error) {
    if (error instanceof DamagedArchiveError) throw invalidWordDocument(filename, error);
    if (FleetError.isInstance(error)) throw error;
    throw invalidWordDocument(filename, error);
  }
  if (htmlNestsDeeperThan(html, limits.maxNestingDepth)) {
    throw nestingTooDeep(filename, limits.maxNestingDepth);
  }
  return parseHtml(`<html><body>${html}</body></html>`, { titleSelector: 'p.doc-title' });
}
