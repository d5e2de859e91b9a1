import { ValidationError } from '@fleet/errors';
import { chunkDocument } from './chunk-document';
import { DocumentParseError } from './document-parse-error';
import { resolveLimits, type IngestLimits, type Truncation } from './limits';
import { parseDocument } from './parse-document';
import type { Chunk, ParsedDocument } from './types';

/** Characters of unbroken non-space text a document may hold before it counts as encoded data. */
const MAX_UNBROKEN_CHARS = 200_000;

/**
 * Chunking goes on this many children past `maxChunks` so that the warning can say how many
 * chunks the document has; past that it stops (a document of a million tiny sections would
 * otherwise cost its whole chunking for nothing) and the warning says only how many were kept.
 */
const COUNT_PAST_LIMIT = 20_000;

/** Input to {@link readDocument}. */
export interface ReadDocumentInput {
  filename: string;
  bytes: Uint8Array;
  mediaType?: string | undefined;
  /** Unset limits are the defaults (`DEFAULT_INGEST_LIMITS`). */
  limits?: Partial<IngestLimits> | undefined;
}

/** A document read and cut into chunks, ready to describe, embed and store. */
export interface ReadDocumentResult {
  docType: ParsedDocument['docType'];
  title: string | undefined;
  pages: number | undefined;
  metadata: Record<string, unknown> | undefined;
  /** Parents and children, in document order, at most `maxChunks` children. */
  chunks: Chunk[];
  /** Everything left out because of a limit (rows, columns, cells, pages, characters, chunks). */
  truncations: Truncation[];
}

/**
 * Refuses documents that are mostly long runs without spaces (base64, hex dumps, minified data):
 * they hold nothing to search, and tokenizing them costs ~15 s a megabyte.
 */
function assertIndexable(document: ParsedDocument, filename: string): void {
  let unbroken = 0;
  for (const section of document.sections) {
    for (const block of section.blocks) {
      const text =
        block.kind === 'table'
          ? block.rows.flat().join(' ')
          : block.kind === 'list'
            ? block.items.join(' ')
            : block.text;
      for (const run of text.matchAll(/\S{2000,}/g)) unbroken += run[0].length;
    }
  }
  if (unbroken > MAX_UNBROKEN_CHARS) {
    throw new DocumentParseError(
      filename,
      `${filename} is mostly unbroken runs of characters without spaces (${unbroken} characters, e.g. encoded data), which cannot be searched; upload the decoded text instead.`,
    );
  }
}

/**
 * The chunks up to and including the `maxChildren`-th child; parents left without a child are
 * dropped. Ordinals stay dense (a prefix is kept). `complete` says whether `chunks` held the
 * whole document, so that the truncation can give its total.
 */
function limitChunks(
  chunks: readonly Chunk[],
  { maxChildren, complete }: { maxChildren: number; complete: boolean },
): { chunks: Chunk[]; truncation?: Truncation } {
  const children = chunks.filter((chunk) => chunk.kind === 'child').length;
  if (children <= maxChildren) return { chunks: [...chunks] };
  const kept: Chunk[] = [];
  let seen = 0;
  for (const chunk of chunks) {
    if (chunk.kind === 'child') {
      if (seen === maxChildren) break;
      seen++;
    }
    kept.push(chunk);
  }
  while (kept.length > 0 && kept[kept.length - 1]?.kind === 'parent') kept.pop();
  return {
    chunks: kept,
    truncation: {
      limit: 'maxChunks',
      kept: maxChildren,
      ...(complete ? { total: children } : {}),
    },
  };
}

/**
 * Reads one file into what the RAG agent stores: parse ({@link parseDocument}, under the
 * ingestion limits), refuse encoded data, cut into chunks (at most `maxChunks` children, chunking
 * stopped soon after), with every truncation on the way. This is the CPU- and memory-heavy part of
 * an ingest, and the job the parse pool's worker threads run (`read-document-worker.ts`).
 *
 * @throws DocumentParseError (400) for a damaged, empty, encoded or too deeply nested file;
 *   `DocumentLimitError` (413) past an unpacking limit; UnsupportedDocumentError (415);
 *   ValidationError (400) when nothing of it can be indexed.
 */
export async function readDocument({
  filename,
  bytes,
  mediaType,
  limits: given,
}: ReadDocumentInput): Promise<ReadDocumentResult> {
  const limits = resolveLimits(given);
  const parsed = await parseDocument({
    filename,
    bytes,
    limits,
    ...(mediaType === undefined ? {} : { mediaType }),
  });
  assertIndexable(parsed, filename);
  const stopAfterChildren = limits.maxChunks + COUNT_PAST_LIMIT;
  const all = chunkDocument(parsed, { stopAfterChildren });
  const counted = all.filter((chunk) => chunk.kind === 'child').length;
  const limited = limitChunks(all, {
    maxChildren: limits.maxChunks,
    complete: counted <= stopAfterChildren,
  });
  if (!limited.chunks.some((chunk) => chunk.kind === 'child')) {
    throw new ValidationError(`${filename} has no text to index.`, { details: { filename } });
  }
  return {
    docType: parsed.docType,
    title: parsed.title,
    pages: parsed.pages,
    metadata: parsed.metadata,
    chunks: limited.chunks,
    truncations: [
      ...(parsed.truncations ?? []),
      ...(limited.truncation ? [limited.truncation] : []),
    ],
  };
}
