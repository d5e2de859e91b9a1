import { FleetError } from '@fleet/errors';
import { inspectDocument } from './detect-doc-type';
import { DocumentParseError } from './document-parse-error';
import type { ParsedBody } from './parsers/parsed-body';
import { parseCsv } from './parsers/parse-csv';
import { parseDocx } from './parsers/parse-docx';
import { parseHtml } from './parsers/parse-html';
import { parseMarkdown } from './parsers/parse-markdown';
import { parsePdf } from './parsers/parse-pdf';
import { parseText } from './parsers/parse-text';
import { parseXlsx } from './parsers/parse-xlsx';
import type { DocType, ParsedDocument } from './types';

/** Input to {@link parseDocument}. */
export interface ParseDocumentInput {
  /** The file's name: its extension names the type, and messages name the file. */
  filename: string;
  /** The file's bytes. */
  bytes: Uint8Array;
  /** The upload's media type; used only when the name has no known extension. */
  mediaType?: string | undefined;
}

function baseName(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? filename;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

async function parseBody({
  docType,
  filename,
  bytes,
  text,
}: {
  docType: DocType;
  filename: string;
  bytes: Uint8Array;
  text: string;
}): Promise<ParsedBody> {
  switch (docType) {
    case 'pdf':
      return parsePdf({ filename, bytes });
    case 'docx':
      return parseDocx({ filename, bytes });
    case 'xlsx':
      return parseXlsx({ filename, bytes });
    case 'csv':
      return parseCsv({ filename, text });
    case 'md':
      return parseMarkdown(text);
    case 'html':
      return parseHtml(text);
    case 'txt':
      return parseText(text);
  }
}

function hasText(body: ParsedBody): boolean {
  return body.sections.some((section) =>
    section.blocks.some((block) =>
      block.kind === 'table'
        ? block.rows.some((row) => row.some((cell) => /\S/.test(cell)))
        : block.kind === 'list'
          ? block.items.some((item) => /\S/.test(item))
          : /\S/.test(block.text),
    ),
  );
}

/**
 * Parses a document into sections of blocks, keeping its structure: PDF pages, paragraphs and
 * headings guessed from font size; DOCX heading styles, lists and tables; one table section per
 * XLSX sheet; CSV as one table; Markdown and HTML headings, paragraphs, lists, tables and code;
 * plain-text paragraphs with conservatively guessed headings. The title is the format's own
 * title or first heading, else the file name without its extension.
 *
 * @param input - `filename`, `bytes`, optional `mediaType`.
 * @returns The parsed document.
 * @throws {@link UnsupportedDocumentError} for a type that is not supported or content that does
 *   not match the name; {@link DocumentParseError} for a damaged file or one without text.
 *
 * @example
 * const doc = await parseDocument({ filename: 'handbook.docx', bytes });
 * const chunks = chunkDocument(doc);
 */
export async function parseDocument({
  filename,
  bytes,
  mediaType,
}: ParseDocumentInput): Promise<ParsedDocument> {
  const { docType, text } = inspectDocument({ filename, bytes, mediaType });
  if (bytes.length === 0)
    throw new DocumentParseError(filename, `${filename} has no text to index.`);
  let body: ParsedBody;
  try {
    body = await parseBody({ docType, filename, bytes, text: text ?? '' });
  } catch (error) {
    if (FleetError.isInstance(error)) throw error;
    throw new DocumentParseError(
      filename,
      `Cannot read "${filename}": its content could not be parsed.`,
      {
        cause: error,
        details: { reason: error instanceof Error ? error.message.slice(0, 200) : 'unknown' },
      },
    );
  }
  if (!hasText(body)) {
    const hint =
      docType === 'pdf' ? ' (a scanned PDF has no text layer; OCR is not supported)' : '';
    throw new DocumentParseError(filename, `${filename} has no text to index${hint}.`);
  }
  return { docType, ...body, title: body.title ?? baseName(filename) };
}
