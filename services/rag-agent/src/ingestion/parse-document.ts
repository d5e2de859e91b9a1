import { FleetError } from '@fleet/errors';
import { inspectDocument } from './detect-doc-type';
import { DocumentParseError } from './document-parse-error';
import { cutText, limitText } from './limit-text';
import { resolveLimits, type IngestLimits, type Truncation } from './limits';
import { htmlNestsDeeperThan } from '@fleet/worker-pool';
import { markdownNestsDeeperThan, nestingTooDeep } from './nesting-depth';
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
  /** What the document may cost to read; unset limits are the defaults (`DEFAULT_INGEST_LIMITS`). */
  limits?: Partial<IngestLimits> | undefined;
}

function baseName(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? filename;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

/**
 * Plain text and Markdown longer than `maxTextChars` are cut before parsing (marked's time grows
 * faster than the text); CSV is bounded by rows as it is parsed, HTML by the text left after its
 * markup.
 */
function cutBeforeParsing(
  docType: DocType,
  text: string,
  limits: IngestLimits,
): { text: string; truncation?: Truncation } {
  if ((docType !== 'txt' && docType !== 'md') || text.length <= limits.maxTextChars) {
    return { text };
  }
  return {
    text: cutText(text, limits.maxTextChars),
    truncation: { limit: 'maxTextChars', kept: limits.maxTextChars, total: text.length },
  };
}

async function parseBody({
  docType,
  filename,
  bytes,
  text,
  limits,
}: {
  docType: DocType;
  filename: string;
  bytes: Uint8Array;
  text: string;
  limits: IngestLimits;
}): Promise<ParsedBody> {
  switch (docType) {
    case 'pdf':
      return parsePdf({ filename, bytes, limits });
    case 'docx':
      return parseDocx({ filename, bytes, limits });
    case 'xlsx':
      return parseXlsx({ filename, bytes, limits });
    case 'csv':
      return parseCsv({ filename, text, limits });
    case 'md':
      if (markdownNestsDeeperThan(text, limits.maxNestingDepth)) {
        throw nestingTooDeep(filename, limits.maxNestingDepth);
      }
      return parseMarkdown(text);
    case 'html':
      if (htmlNestsDeeperThan(text, limits.maxNestingDepth)) {
        throw nestingTooDeep(filename, limits.maxNestingDepth);
      }
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
 * Reading is bounded by `limits` (see {@link IngestLimits}): archives and compressed PDF streams
 * are measured before and while they are inflated, nesting is checked before the parsers recurse,
 * and rows, pages and characters past their limits are left out, as `truncations` say.
 *
 * @param input - `filename`, `bytes`, optional `mediaType` and `limits`.
 * @returns The parsed document.
 * @throws {@link UnsupportedDocumentError} for a type that is not supported or content that does
 *   not match the name; {@link DocumentParseError} for a damaged file, one without text or one
 *   nested too deep; `DocumentLimitError` (413) for one that unpacks past the limits.
 *
 * @example
 * const doc = await parseDocument({ filename: 'handbook.docx', bytes });
 * const chunks = chunkDocument(doc);
 */
export async function parseDocument({
  filename,
  bytes,
  mediaType,
  limits: given,
}: ParseDocumentInput): Promise<ParsedDocument> {
  const limits = resolveLimits(given);
  const { docType, text } = inspectDocument({ filename, bytes, mediaType });
  if (bytes.length === 0)
    throw new DocumentParseError(filename, `${filename} has no text to index.`);
  const cut = cutBeforeParsing(docType, text ?? '', limits);
  let body: ParsedBody;
  try {
    body = await parseBody({ docType, filename, bytes, text: cut.text, limits });
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
  if (cut.truncation)
    body = { ...body, truncations: [cut.truncation, ...(body.truncations ?? [])] };
  body = limitText(body, limits.maxTextChars);
  if (!hasText(body)) {
    const hint =
      docType === 'pdf' ? ' (a scanned PDF has no text layer; OCR is not supported)' : '';
    throw new DocumentParseError(filename, `${filename} has no text to index${hint}.`);
  }
  return { docType, ...body, title: body.title ?? baseName(filename) };
}
