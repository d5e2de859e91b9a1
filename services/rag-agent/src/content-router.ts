import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import {
  cleanRunFileName,
  DOCUMENT_METADATA_HEADER,
  documentSearchRequestSchema,
  encodeContentMetadata,
  MAX_CONTENT_METADATA_HEADER_LENGTH,
  readContentMetadata,
  RUN_FILE_METADATA_HEADER,
  RUN_FILE_PUT_HEADER,
  runFileIdSchema,
  runFilePutMetadataSchema,
  type DocumentContentMetadata,
  type RunFilePutMetadata,
  type RunFileStore,
} from '@fleet/a2a';
import {
  FleetError,
  NotFoundError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '@fleet/errors';
import {
  boundedValidationError,
  DISCARD_LIMIT,
  discardBody,
  readBody,
  readJsonBody,
  readSingleHeader,
} from '@fleet/http';
import type { DocumentService } from './documents';
import { toDocumentSearchResult, type Retriever } from './retrieval';
import { DEFAULT_MAX_RUN_FILE_BYTES, MAX_RUN_FILE_LABEL_LENGTH } from './store';

/** The query of both byte routes: whose file it is. */
const contentQuerySchema = z.object({
  tenant: z.string().min(1).max(MAX_RUN_FILE_LABEL_LENGTH),
});

/** The id path parameter, before it is checked against the kind of id it names. */
const idParamsSchema = z.object({ id: z.string() });

/** Longest id an error message repeats (a malformed one can be long). */
const MAX_ECHOED_ID = 100;

/** How the put header is named in errors. */
const PUT_HEADER_LABEL = 'X-Fleet-File-Put';

/** Options for {@link contentRouter}. */
export interface ContentRouterOptions {
  /**
   * The run file store: serves `POST /files`, `GET /files/:id/content` and `DELETE /files/:id`.
   * Absent: those routes are not found.
   */
  runFiles?: Pick<RunFileStore, 'get' | 'put' | 'remove'> | undefined;
  /**
   * Largest body `POST /files` reads (RAG_MAX_RUN_FILE_BYTES): past it the request is refused
   * with 413 while it streams, and no more of it is kept. @default 16777216 (16 MiB)
   */
  maxRunFileBytes?: number | undefined;
  /** The documents: serves `/documents/:id/content`. Absent: that route is not found. */
  documents?: Pick<DocumentService, 'get'> | undefined;
  /**
   * The retriever the `search` skill uses: serves `POST /search`. Absent: that route is not found.
   */
  retriever?: Pick<Retriever, 'retrieve'> | undefined;
}

/** Largest search body read: a query of 2000 characters is at most 8000 bytes of UTF-8. */
const SEARCH_BODY_LIMIT = 16 * 1024;

function tenantOf(req: Request): string {
  const query = contentQuerySchema.safeParse(req.query);
  if (!query.success) throw boundedValidationError(query.error, { subject: 'The query' });
  return query.data.tenant;
}

function idOf(req: Request): string {
  return idParamsSchema.parse(req.params).id;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0
    ? `${bytes / (1024 * 1024)} MiB`
    : `${bytes.toLocaleString('en-US')} bytes`;
}

const PUT_HEADER_PROBLEMS = {
  missing: `is missing: send the file's name, type, source and expiry as base64url JSON in it`,
  'too-long': `is longer than ${MAX_CONTENT_METADATA_HEADER_LENGTH} characters`,
  'not-base64url': 'is not base64url (A-Z, a-z, 0-9, - and _ only)',
  'not-json': 'is not base64url-encoded JSON',
} as const;

/** What a `POST /files` says its body is, from its {@link RUN_FILE_PUT_HEADER}; 400 if wrong. */
function putMetadataOf(req: Request): RunFilePutMetadata {
  const read = readContentMetadata(
    readSingleHeader(req, RUN_FILE_PUT_HEADER, { label: PUT_HEADER_LABEL }),
    runFilePutMetadataSchema,
  );
  if (read.ok) return read.value;
  if (read.problem === 'invalid') {
    throw boundedValidationError(read.error, { subject: `The ${PUT_HEADER_LABEL} header` });
  }
  throw new ValidationError(
    `The ${PUT_HEADER_LABEL} header ${PUT_HEADER_PROBLEMS[read.problem]}.`,
    {
      param: PUT_HEADER_LABEL,
    },
  );
}

/** Refuses a body that is not sent as `application/octet-stream` (415). */
function checkOctetStream(req: Request): void {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type !== 'application/octet-stream') {
    throw new UnsupportedMediaTypeError(
      `A run file's bytes are sent as Content-Type: application/octet-stream, not ${type === '' ? 'without a type' : type.slice(0, 100)}; its type goes in ${PUT_HEADER_LABEL}.`,
      { param: 'content-type' },
    );
  }
}

/** Sends bytes as an octet stream, with their metadata in `header` (base64url JSON). */
function sendBytes(
  res: Response,
  { bytes, header, metadata }: { bytes: Uint8Array; header: string; metadata: unknown },
): void {
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  res.status(200);
  res.setHeader('content-type', 'application/octet-stream');
  res.setHeader('content-length', body.byteLength);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('cache-control', 'no-store');
  res.setHeader(header, encodeContentMetadata(metadata));
  res.end(body);
}

/** The `POST /search` handler: the retriever's hybrid search of the tenant's documents, as JSON. */
function searchDocumentsHandler(
  retriever: NonNullable<ContentRouterOptions['retriever']>,
): (req: Request, res: Response) => Promise<void> {
  return async function searchDocuments(req: Request, res: Response) {
    const tenant = tenantOf(req);
    const { value } = await readJsonBody(req, {
      limit: SEARCH_BODY_LIMIT,
      schema: documentSearchRequestSchema,
    });
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const retrieval = await retriever.retrieve({
      tenant,
      question: value.query,
      topK: value.limit,
      signal: controller.signal,
    });
    res.status(200);
    res.setHeader('cache-control', 'no-store');
    res.json(toDocumentSearchResult(retrieval));
  };
}

/**
 * Reads a run file's bytes from the request, up to `maxRunFileBytes`.
 *
 * @throws PayloadTooLargeError naming the file when its declared or read length is past the limit.
 */
async function readRunFileBytes(
  req: Request,
  name: string,
  maxRunFileBytes: number,
): Promise<Buffer> {
  const tooLarge = (cause?: unknown) =>
    new PayloadTooLargeError(
      `${name} is larger than ${formatBytes(maxRunFileBytes)}, the largest run file kept (RAG_MAX_RUN_FILE_BYTES).`,
      { param: 'file', details: { filename: name, limit: maxRunFileBytes }, cause },
    );
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > maxRunFileBytes) {
    // Read and thrown away (never kept) up to the limit and more, so that the 413 reaches a
    // client still sending a file a little over the limit instead of a reset connection.
    discardBody(req, { maxBytes: maxRunFileBytes + DISCARD_LIMIT });
    throw tooLarge();
  }
  try {
    return await readBody(req, { limit: maxRunFileBytes });
  } catch (error) {
    if (FleetError.isInstance(error) && error.code === 'PAYLOAD_TOO_LARGE') {
      throw tooLarge(error);
    }
    throw error;
  }
}

/**
 * The RAG agent's byte routes, for the fleet's services (mounted at `/internal` behind the internal
 * token: `createAgentApp`'s `internalRoutes`). They keep and read what the `files` and `documents`
 * commands keep and read, without an A2A task: nothing is kept in the task store, and the bytes
 * travel as they are, not base64 inside JSON.
 *
 * - `POST /files?tenant=` — keeps one run file (the store's `put`, without an A2A task): the body
 *   is its raw bytes (`application/octet-stream`, at most `maxRunFileBytes`: 413 past it, while
 *   it streams), its name, type, session, step, agent, source and expiry in `X-Fleet-File-Put`
 *   (base64url JSON, `runFilePutMetadataSchema`: 400 naming what is wrong); 201 with the
 *   `RunFile`. A refused type or bytes unlike their type is the store's 400 naming the file.
 * - `GET /files/:id/content?tenant=` — a run file's bytes; its `RunFile` in `X-Fleet-File`.
 * - `DELETE /files/:id?tenant=` — deletes a run file: `{ deleted: boolean }` (false for an
 *   unknown, malformed, foreign or expired id).
 * - `GET /documents/:id/content?tenant=` — a document's original bytes;
 *   `{ document, filename, mediaType }` in `X-Fleet-Document`.
 * - `POST /search?tenant=` — `{ query, limit? }` (`documentSearchRequestSchema`, 400 naming what is
 *   wrong): the hybrid search of the `search` skill over the tenant's documents, answered as JSON
 *   (`documentSearchResultSchema`: the `limit` best passages, best first).
 *
 * The reads answer `application/octet-stream` with `Content-Length`, and the header as base64url
 * of the JSON. An unknown id, a malformed one, another tenant's or an expired file is 404; no tenant
 * is 400; a database that cannot be reached is the retryable 503 with `Retry-After`; all in the
 * fleet's JSON error body.
 *
 * @example
 * createAgentApp({ ..., internalRoutes: contentRouter({ runFiles, maxRunFileBytes, documents, retriever }) });
 */
export function contentRouter({
  runFiles,
  maxRunFileBytes = DEFAULT_MAX_RUN_FILE_BYTES,
  documents,
  retriever,
}: ContentRouterOptions): Router {
  const router = Router();

  if (retriever !== undefined) {
    router.post('/search', searchDocumentsHandler(retriever));
  }

  if (runFiles !== undefined) {
    router.post('/files', async function keepRunFile(req: Request, res: Response) {
      let metadata: RunFilePutMetadata;
      let tenant: string;
      try {
        tenant = tenantOf(req);
        metadata = putMetadataOf(req);
        checkOctetStream(req);
      } catch (error) {
        // The answer reaches a client that is still sending; the body is thrown away unread.
        discardBody(req);
        throw error;
      }
      const name = cleanRunFileName(metadata.name, 'file-1');
      const bytes = await readRunFileBytes(req, name, maxRunFileBytes);
      const [file] = await runFiles.put({
        tenant,
        files: [{ name: metadata.name, mediaType: metadata.mediaType, bytes }],
        ...(metadata.sessionId === undefined ? {} : { sessionId: metadata.sessionId }),
        ...(metadata.nodeId === undefined ? {} : { nodeId: metadata.nodeId }),
        ...(metadata.agent === undefined ? {} : { agent: metadata.agent }),
        source: metadata.source,
        expiresAt: metadata.expiresAt,
      });
      if (file === undefined) throw new Error(`The store kept nothing of ${name}.`);
      res.status(201);
      res.setHeader('cache-control', 'no-store');
      res.json(file);
    });

    router.delete('/files/:id', async function removeRunFile(req: Request, res: Response) {
      const tenant = tenantOf(req);
      const id = idOf(req);
      const deleted = runFileIdSchema.safeParse(id).success
        ? await runFiles.remove({ tenant, id })
        : false;
      res.status(200);
      res.setHeader('cache-control', 'no-store');
      res.json({ deleted });
    });

    router.get('/files/:id/content', async function serveRunFile(req: Request, res: Response) {
      const tenant = tenantOf(req);
      const id = idOf(req);
      if (!runFileIdSchema.safeParse(id).success) {
        throw new NotFoundError(`There is no file ${id.slice(0, MAX_ECHOED_ID)}.`, {
          details: { id: id.slice(0, MAX_ECHOED_ID) },
        });
      }
      const { file, bytes } = await runFiles.get({ tenant, id });
      sendBytes(res, { bytes, header: RUN_FILE_METADATA_HEADER, metadata: file });
    });
  }

  if (documents !== undefined) {
    router.get('/documents/:id/content', async function serveDocument(req: Request, res: Response) {
      const tenant = tenantOf(req);
      const id = idOf(req);
      const original = await documents.get({ tenant, id });
      const metadata: DocumentContentMetadata = {
        document: original.document,
        filename: original.filename,
        mediaType: original.mediaType,
      };
      sendBytes(res, { bytes: original.bytes, header: DOCUMENT_METADATA_HEADER, metadata });
    });
  }

  return router;
}
