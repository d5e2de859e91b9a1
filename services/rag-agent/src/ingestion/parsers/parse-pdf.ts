import { DocumentParseError } from '../document-parse-error';
import type { IngestLimits, Truncation } from '../limits';
import { checkPdfStreams } from './check-pdf-streams';
import { PdfExtractionError, extractPdfText, type PdfFailure } from './extract-pdf-text';
import type { ParsedBody } from './parsed-body';
import { pdfLayout } from './pdf-layout';

const FAILURES: Readonly<Record<PdfFailure, string>> = {
  invalid: 'it is not a valid PDF (the file may be damaged or truncated)',
  password: 'it is password-protected',
  timeout: 'it took too long to read',
  'too-large': 'it is too large or complex to read',
  failed: 'its content could not be read',
};

/**
 * Parses a PDF: text with page numbers, paragraphs and conservatively guessed headings (see
 * {@link pdfLayout}). A PDF of scanned pages has no text layer; it comes back with no sections.
 * Its compressed streams are measured first ({@link checkPdfStreams}); pdf.js reads the first
 * `limits.maxPdfPages` pages, and no further page once `limits.maxTextChars` characters are read;
 * what is left out is in `truncations`.
 *
 * @param options - The file's name (for errors), bytes and the limits.
 * @throws {@link DocumentParseError} for a damaged, truncated or password-protected PDF;
 *   `DocumentLimitError` for one whose streams inflate past the limits.
 */
export async function parsePdf({
  filename,
  bytes,
  limits,
}: {
  filename: string;
  bytes: Uint8Array;
  limits: IngestLimits;
}): Promise<ParsedBody> {
  await checkPdfStreams(bytes, { filename, limits });
  let text;
  try {
    text = await extractPdfText({
      bytes,
      maxPages: limits.maxPdfPages,
      maxChars: limits.maxTextChars,
    });
  } catch (error) {
    const reason = error instanceof PdfExtractionError ? error.reason : 'failed';
    throw new DocumentParseError(filename, `Cannot read "${filename}": ${FAILURES[reason]}.`, {
      cause: error,
      details: { reason },
    });
  }
  const truncations: Truncation[] = [];
  if (text.numPages > limits.maxPdfPages) {
    truncations.push({ limit: 'maxPdfPages', kept: limits.maxPdfPages, total: text.numPages });
  }
  if (text.stoppedAtChars) {
    // Reading stopped early: how much text the rest holds is not known.
    truncations.push({ limit: 'maxTextChars', kept: limits.maxTextChars });
  }
  const body = pdfLayout(text.pages);
  return {
    ...body,
    ...(text.pages.length < text.numPages ? { pages: text.numPages } : {}),
    ...(truncations.length > 0 ? { truncations } : {}),
  };
}
