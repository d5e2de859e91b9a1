import { DocumentParseError } from '../document-parse-error';
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
 *
 * @param options - The file's name (for errors) and bytes.
 * @throws {@link DocumentParseError} for a damaged, truncated or password-protected PDF.
 */
export async function parsePdf({
  filename,
  bytes,
}: {
  filename: string;
  bytes: Uint8Array;
}): Promise<ParsedBody> {
  let pages;
  try {
    pages = await extractPdfText({ bytes });
  } catch (error) {
    const reason = error instanceof PdfExtractionError ? error.reason : 'failed';
    throw new DocumentParseError(filename, `Cannot read "${filename}": ${FAILURES[reason]}.`, {
      cause: error,
      details: { reason },
    });
  }
  return pdfLayout(pages);
}
