import mammoth from 'mammoth';
import { DocumentParseError } from '../document-parse-error';
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
 * Parses a Word document: mammoth turns it into HTML (heading styles become `h1`–`h6`, tables
 * stay tables, lists stay lists), which {@link parseHtml} reads. A paragraph in the `Title` style
 * is the title.
 *
 * @param options - The file's name (for errors) and bytes.
 * @throws {@link DocumentParseError} when the file is not a readable .docx.
 */
export async function parseDocx({
  filename,
  bytes,
}: {
  filename: string;
  bytes: Uint8Array;
}): Promise<ParsedBody> {
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      {
        styleMap: STYLE_MAP,
        convertImage: DROP_IMAGES,
        // Never follow a document's links to files on this machine (mammoth's default, kept explicit).
        externalFileAccess: false,
      },
    );
    html = result.value;
  } catch (error) {
    throw new DocumentParseError(
      filename,
      `Cannot read "${filename}": it is not a valid Word document (the file may be damaged or truncated).`,
      {
        cause: error,
        details: { reason: error instanceof Error ? error.message.slice(0, 200) : 'unknown' },
      },
    );
  }
  return parseHtml(`<html><body>${html}</body></html>`, { titleSelector: 'p.doc-title' });
}
