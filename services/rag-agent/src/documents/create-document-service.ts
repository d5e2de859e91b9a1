import type OpenAI from 'openai';
import type { DocumentInfo } from '@fleet/a2a';
import { NotFoundError, PayloadTooLargeError, ValidationError } from '@fleet/errors';
import type { Embedder } from '@fleet/llm';
import {
  setSpanOutput,
  SpanKind,
  withSpan,
  type Span,
  type WithSpanOptions,
} from '@fleet/telemetry';
import {
  contentHash,
  detectDocType,
  dropRepeatedChunks,
  inProcessDocumentReader,
  resolveLimits,
  truncationWarning,
  type DocumentReader,
  type IngestLimits,
} from '../ingestion';
import { chunkBody } from '../retrieval';
import type { DocumentRecord, DocumentStore, OriginalToStore } from '../store';
import { describeDocument, openingDescription } from './describe-document';
import { formatBytes } from './format-bytes';
import { originalMediaType } from './original-media-type';

/** One file to ingest. */
export interface DocumentUpload {
  filename: string;
  mediaType?: string | undefined;
  bytes: Uint8Array;
}

/** Logging the document service needs. */
export interface DocumentServiceLogger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
}

/** Options for {@link createDocumentService}. */
export interface CreateDocumentServiceOptions {
  store: Pick<
    DocumentStore,
    | 'findByHash'
    | 'insertDocument'
    | 'listDocuments'
    | 'deleteDocument'
    | 'getDocument'
    | 'findByFilename'
    | 'readOriginal'
    | 'attachOriginal'
  >;
  embedder: Embedder;
  /**
   * Throws when documents cannot be embedded now (degraded mode: `EmbeddingGate.assertAvailable`),
   * before a new file is parsed; files already stored still come back as duplicates.
   * @default never throws
   */
  checkEmbeddings?: (() => void) | undefined;
  /**
   * Reads (parses and chunks) each new file. The service passes `createDocumentReader`'s, which
   * reads on worker threads under time and memory budgets, fairly between tenants.
   * @default {@link inProcessDocumentReader} (the calling thread, no budgets)
   */
  reader?: DocumentReader | undefined;
  /** Absent offline: descriptions are the documents' openings. */
  llm?: { client: OpenAI; model: string } | undefined;
  /** Largest file accepted, and largest original `get` returns, in bytes. @default 26214400 (25 MiB) */
  maxBytes?: number;
  /**
   * What one document may cost to read and store (RAG_MAX_ROWS, RAG_MAX_PDF_PAGES, …); unset
   * limits are the defaults (`DEFAULT_INGEST_LIMITS`).
   */
  limits?: Partial<IngestLimits> | undefined;
  /** Chunks embedded per call. @default 64 */
  batchSize?: number;
  logger?: DocumentServiceLogger | undefined;
  tracer?: WithSpanOptions['tracer'];
}

/** A document's original bytes, read back by {@link DocumentService.get}. */
export interface DocumentOriginal {
  document: DocumentInfo;
  /** The document's filename (what `list` shows). */
  filename: string;
  /** The media type kept with the bytes, e.g. `application/pdf`, `text/csv; charset=utf-8`. */
  mediaType: string;
  bytes: Uint8Array;
}

/** Which document {@link DocumentService.get} reads: by id, or by a filename only one has. */
export type DocumentSelector =
  | { tenant: string; id: string; filename?: undefined }
  | { tenant: string; filename: string; id?: undefined };

/** Ingests, lists, reads back and deletes a tenant's documents. */
export interface DocumentService {
  /**
   * Ingests files: all of them or none (a file that fails stops the command before anything of
   * it is stored, and files stored earlier in the same call are removed again). A file whose
   * content the tenant already has is not stored twice: its existing document comes back with
   * `duplicate: true`.
   *
   * A document longer than a row, page, text or chunk limit is stored in part: its
   * `DocumentInfo` says `truncated: true` with `warnings`, and a warning is logged.
   *
   * @throws PayloadTooLargeError (413) for a file over the limit, one that unpacks past the
   *   archive limits or whose reading ran past its time or memory (`DocumentLimitError`),
   *   UnsupportedDocumentError (415) for a type the agent cannot read, DocumentParseError (400)
   *   for a damaged, empty or too deeply nested file, ServiceUnavailableError (503, retryable)
   *   while the database cannot be reached or too many uploads wait to be read.
   */
  ingest(input: {
    tenant: string;
    files: readonly DocumentUpload[];
    signal?: AbortSignal | undefined;
  }): Promise<DocumentInfo[]>;
  /**
   * The tenant's documents, newest first.
   *
   * @throws ServiceUnavailableError (503, retryable) while the database cannot be reached.
   */
  list(tenant: string): Promise<DocumentInfo[]>;
  /**
   * Deletes one of the tenant's documents with its chunks (and its original bytes, unless another
   * document of the tenant has the same); false when it has no such document.
   *
   * @throws ServiceUnavailableError (503, retryable) while the database cannot be reached.
   */
  delete(input: { tenant: string; id: string }): Promise<boolean>;
  /**
   * One of the tenant's documents with its original bytes, by id or by a filename (exact) that
   * only one of its documents has.
   *
   * @throws NotFoundError (404) for an unknown id or filename, another tenant's document (the same
   *   error as an unknown one) or a document whose bytes were not kept; ValidationError (400) for
   *   a filename several documents have (`details.ids`); PayloadTooLargeError (413) for an
   *   original over `maxBytes` (the limit was lowered since it was stored); ServiceUnavailableError
   *   (503, retryable) while the database cannot be reached.
   */
  get(input: DocumentSelector): Promise<DocumentOriginal>;
}

/** Characters of the opening used for the description. */
const OPENING_LENGTH = 4_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The warnings stored with a document (`metadata.warnings`), if it was truncated. */
function storedWarnings(record: DocumentRecord): string[] {
  const warnings = record.metadata['warnings'];
  return Array.isArray(warnings)
    ? warnings.filter((warning): warning is string => typeof warning === 'string')
    : [];
}

/** The wire form of a stored document (`documentInfoSchema`). */
export function toDocumentInfo(record: DocumentRecord, duplicate?: boolean): DocumentInfo {
  const warnings = storedWarnings(record);
  return {
    id: record.id,
    filename: record.filename,
    docType: record.docType,
    chunks: record.chunks,
    description: record.description,
    createdAt: record.createdAt,
    ...(duplicate === undefined ? {} : { duplicate }),
    ...(record.metadata['truncated'] === true ? { truncated: true } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    original: record.original !== undefined,
  };
}

/** A file parsed, chunked, described and embedded, ready to store. */
interface PreparedDocument {
  filename: string;
  hash: string;
  existing?: DocumentRecord;
  /** For an existing document stored without its bytes: the bytes to keep now. */
  attach?: OriginalToStore;
  insert?: Parameters<DocumentStore['insertDocument']>[0];
}

/** What the ingestion functions share: {@link createDocumentService}'s options, resolved. */
interface IngestContext {
  store: CreateDocumentServiceOptions['store'];
  embedder: Embedder;
  checkEmbeddings: (() => void) | undefined;
  llm: CreateDocumentServiceOptions['llm'];
  maxBytes: number;
  limits: IngestLimits | undefined;
  reader: DocumentReader;
  batchSize: number;
  logger: DocumentServiceLogger | undefined;
  tracer: WithSpanOptions['tracer'];
}

/** The children's texts embedded in batches of `batchSize`, in order. */
async function embedChildren(
  context: IngestContext,
  texts: readonly string[],
  signal: AbortSignal | undefined,
): Promise<number[][]> {
  const { embedder, batchSize } = context;
  const vectors: number[][] = [];
  for (let start = 0; start < texts.length; start += batchSize) {
    signal?.throwIfAborted();
    const batch = texts.slice(start, start + batchSize);
    const embedded = await embedder.embed(batch, signal ? { signal } : {});
    if (embedded.length !== batch.length) {
      throw new Error(
        `The embedder returned ${embedded.length} vectors for ${batch.length} texts.`,
      );
    }
    vectors.push(...embedded);
  }
  return vectors;
}

/** The document's description by the LLM, or its opening when that fails (logged). */
async function describeOrOpening(
  context: IngestContext,
  { filename, opening }: { filename: string; opening: string },
  signal: AbortSignal | undefined,
): Promise<string> {
  const { llm, tracer, logger } = context;
  try {
    return await describeDocument({ filename, opening, llm, signal, tracer });
  } catch (error) {
    if (signal?.aborted) throw error;
    logger?.warn({ err: error, filename }, 'describing the document with the LLM failed');
    return openingDescription(opening);
  }
}

/** A new file read: parsed, chunked, described and embedded, with what to insert. */
interface NewFile {
  tenant: string;
  file: DocumentUpload;
  docType: ReturnType<typeof detectDocType>;
  hash: string;
  original: OriginalToStore;
}

/** Reads a file that is not stored yet into the document and chunks to insert. */
async function readNewDocument(
  context: IngestContext,
  { tenant, file, docType, hash, original }: NewFile,
  { span, signal }: { span: Span; signal: AbortSignal | undefined },
): Promise<PreparedDocument> {
  const { filename, bytes, mediaType } = file;
  const { limits, logger } = context;
  const parsed = await context.reader.read({
    tenant,
    filename,
    bytes,
    signal,
    ...(limits === undefined ? {} : { limits }),
    ...(mediaType === undefined ? {} : { mediaType }),
  });
  // A passage repeated in the document is stored and embedded once (an amplified
  // spreadsheet cell, a page's boilerplate): the cost of indexing follows what is distinct.
  const { chunks, dropped } = dropRepeatedChunks(parsed.chunks);
  const { truncations } = parsed;
  const warnings = truncations.map(truncationWarning);
  const children = chunks.filter((chunk) => chunk.kind === 'child');
  // The chunks' text without their heading prefixes, led by the document's title.
  const body = children.map((chunk) => chunkBody(chunk)).join('\n\n');
  const title = parsed.title?.trim() ?? '';
  const opening = (title === '' || body.startsWith(title) ? body : `${title}. ${body}`).slice(
    0,
    OPENING_LENGTH,
  );
  const description = await describeOrOpening(context, { filename, opening }, signal);
  const vectors = await embedChildren(
    context,
    children.map((chunk) => chunk.text),
    signal,
  );
  const byOrdinal = new Map(children.map((chunk, index) => [chunk.ordinal, vectors[index]]));
  setSpanOutput(span, {
    docType,
    chunks: chunks.length,
    children: children.length,
    ...(dropped > 0 ? { repeatedChunksDropped: dropped } : {}),
    ...(warnings.length > 0 ? { truncated: true, warnings } : {}),
  });
  if (warnings.length > 0) {
    logger?.warn({ tenant, filename, docType, warnings }, 'document truncated');
  }
  return {
    filename,
    hash,
    insert: {
      tenant,
      filename,
      docType,
      contentHash: hash,
      description,
      metadata: {
        ...(parsed.title === undefined ? {} : { title: parsed.title }),
        ...(parsed.pages === undefined ? {} : { pages: parsed.pages }),
        ...(mediaType === undefined ? {} : { mediaType }),
        bytes: bytes.byteLength,
        embeddingModel: context.embedder.model,
        ...parsed.metadata,
        ...(warnings.length > 0 ? { truncated: true, warnings, truncations } : {}),
      },
      chunks: chunks.map((chunk) => ({
        ...chunk,
        embedding: byOrdinal.get(chunk.ordinal) ?? null,
      })),
      original,
    },
  };
}

/**
 * One file of an ingest, in a CHAIN span `rag.ingest`: size and type checked, hashed, and either
 * found already stored (a duplicate) or read as a new document.
 */
async function prepareDocument(
  context: IngestContext,
  { tenant, file }: { tenant: string; file: DocumentUpload },
  signal: AbortSignal | undefined,
): Promise<PreparedDocument> {
  const { filename, bytes, mediaType } = file;
  const { maxBytes, store } = context;
  return withSpan(
    {
      name: 'rag.ingest',
      kind: SpanKind.CHAIN,
      input: { filename, mediaType, bytes: bytes.byteLength },
      tracer: context.tracer,
    },
    async (span) => {
      if (bytes.byteLength > maxBytes) {
        throw new PayloadTooLargeError(
          `${filename} is ${formatBytes(bytes.byteLength)}; the largest file the RAG agent takes is ${formatBytes(maxBytes)} (RAG_MAX_UPLOAD_BYTES).`,
          { details: { filename, bytes: bytes.byteLength, limit: maxBytes } },
        );
      }
      const docType = detectDocType({
        filename,
        bytes,
        ...(mediaType === undefined ? {} : { mediaType }),
      });
      const hash = contentHash(bytes);
      const original: OriginalToStore = {
        bytes,
        mediaType: originalMediaType(docType, bytes),
        filename,
      };
      const existing = await store.findByHash(tenant, hash);
      if (existing) {
        setSpanOutput(span, { duplicate: true, documentId: existing.id });
        // A document ingested before originals were kept gets them from this upload.
        return {
          filename,
          hash,
          existing,
          ...(existing.original === undefined ? { attach: original } : {}),
        };
      }
      context.checkEmbeddings?.();
      return readNewDocument(context, { tenant, file, docType, hash, original }, { span, signal });
    },
  );
}

/** Stores a prepared file: a new document inserted, or a duplicate given its original bytes. */
async function storePrepared(
  store: CreateDocumentServiceOptions['store'],
  prepared: PreparedDocument,
): Promise<DocumentInfo> {
  const { existing, attach } = prepared;
  if (existing) {
    if (attach === undefined) return toDocumentInfo(existing, true);
    const attached = await store.attachOriginal({
      tenant: existing.tenant,
      id: existing.id,
      original: attach,
    });
    const record = attached ? await store.getDocument(existing.tenant, existing.id) : undefined;
    return toDocumentInfo(record ?? existing, true);
  }
  const input = prepared.insert;
  if (input === undefined) throw new Error(`Nothing to store for ${prepared.filename}.`);
  // The store answers a concurrent upload of the same content with the existing document.
  const record = await store.insertDocument(input);
  return toDocumentInfo(record, record.duplicate === true);
}

/** The not-found error for a document asked for by id or by name. */
function notFound(selector: DocumentSelector): NotFoundError {
  return selector.id === undefined
    ? new NotFoundError(`There is no document named ${selector.filename} in this library.`, {
        details: { filename: selector.filename },
      })
    : new NotFoundError(`There is no document ${selector.id} in this library.`, {
        details: { id: selector.id },
      });
}

/** The one document a selector names; several with the name is a validation error. */
async function findOne(
  store: CreateDocumentServiceOptions['store'],
  selector: DocumentSelector,
): Promise<DocumentRecord> {
  const { tenant } = selector;
  if (selector.id !== undefined) {
    const record = UUID.test(selector.id)
      ? await store.getDocument(tenant, selector.id)
      : undefined;
    if (record === undefined) throw notFound(selector);
    return record;
  }
  const named = await store.findByFilename(tenant, selector.filename);
  const [record, ...others] = named;
  if (record === undefined) throw notFound(selector);
  if (others.length > 0) {
    throw new ValidationError(
      `${named.length} documents are named ${selector.filename} (${named.map((each) => each.id).join(', ')}); ask for one by id.`,
      { details: { filename: selector.filename, ids: named.map((each) => each.id) } },
    );
  }
  return record;
}

/**
 * The ingestion pipeline (reference: "RAG Document Pipeline") and document management, per
 * tenant. For each file: size check → type detection (`detectDocType`: extension and magic bytes)
 * → content hash, and `findByHash` (unchanged content is a no-op) → `checkEmbeddings` (degraded
 * mode refuses new documents) → parse → chunk (children of
 * about 350 tokens under section-sized parents) → description (`describeDocument`; a failed LLM
 * call falls back to the opening, logged) → children embedded in batches → `insertDocument` (one
 * transaction per document). Each file runs in a CHAIN span `rag.ingest`.
 *
 * @example
 * const documents = createDocumentService({ store, embedder, llm, maxBytes: config.maxUploadBytes });
 * const [info] = await documents.ingest({ tenant, files: [{ filename: 'a.md', bytes }] });
 */
export function createDocumentService({
  store,
  embedder,
  checkEmbeddings,
  llm,
  maxBytes = 25 * 1024 * 1024,
  limits: givenLimits,
  reader = inProcessDocumentReader,
  batchSize = 64,
  logger,
  tracer,
}: CreateDocumentServiceOptions): DocumentService {
  // Checked here, at start-up, rather than on a reading thread at the first upload.
  const limits = givenLimits === undefined ? undefined : resolveLimits(givenLimits);
  const context: IngestContext = {
    store,
    embedder,
    checkEmbeddings,
    llm,
    maxBytes,
    limits,
    reader,
    batchSize,
    logger,
    tracer,
  };

  return {
    async ingest({ tenant, files, signal }) {
      if (files.length === 0) {
        throw new ValidationError('There is no file to ingest.');
      }
      // Everything that can fail on the content happens before anything is stored.
      const prepared: PreparedDocument[] = [];
      for (const file of files)
        prepared.push(await prepareDocument(context, { tenant, file }, signal));
      const stored: DocumentInfo[] = [];
      try {
        for (const document of prepared) {
          signal?.throwIfAborted();
          stored.push(await storePrepared(store, document));
        }
      } catch (error) {
        for (const document of stored.filter((info) => info.duplicate !== true)) {
          await store.deleteDocument(tenant, document.id).catch(() => false);
        }
        throw error;
      }
      for (const info of stored) {
        logger?.info(
          {
            tenant,
            documentId: info.id,
            filename: info.filename,
            chunks: info.chunks,
            duplicate: info.duplicate,
          },
          info.duplicate ? 'document already stored' : 'document ingested',
        );
      }
      return stored;
    },
    async list(tenant) {
      const records = await store.listDocuments(tenant);
      return records.map((record) => toDocumentInfo(record));
    },
    async delete({ tenant, id }) {
      if (!UUID.test(id)) return false;
      return store.deleteDocument(tenant, id);
    },
    async get(selector) {
      const { tenant } = selector;
      const record = await findOne(store, selector);
      const { original } = record;
      if (original === undefined) {
        throw new NotFoundError(
          `Document ${record.id} (${record.filename}) was ingested before the RAG agent kept original files, so its bytes are not stored; upload the file again to keep them.`,
          { details: { id: record.id, reason: 'no_original' } },
        );
      }
      if (original.bytes > maxBytes) {
        throw new PayloadTooLargeError(
          `${record.filename} is ${formatBytes(original.bytes)}; the RAG agent returns files of up to ${formatBytes(maxBytes)} (RAG_MAX_UPLOAD_BYTES).`,
          { details: { id: record.id, bytes: original.bytes, limit: maxBytes } },
        );
      }
      const bytes = await store.readOriginal(tenant, record.id);
      // Deleted between the two reads: as if it had never been there.
      if (bytes === undefined) throw notFound(selector);
      return {
        document: toDocumentInfo(record),
        filename: record.filename,
        mediaType: original.mediaType,
        bytes,
      };
    },
  };
}
