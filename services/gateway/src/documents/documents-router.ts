import express, { type Request, type Response, type Router } from 'express';
import type { DocumentInfo } from '@fleet/a2a';
import { FleetError, NotFoundError, ServiceUnavailableError } from '@fleet/errors';
import { addLogFields, readJsonBody } from '@fleet/http';
import { getTenant } from '../auth';
import { ownPayloadLimit } from '../limits';
import type { DocumentsClient } from './documents-client';
import { downloadHeaders } from './download-headers';
import { readUpload } from './read-upload';
import { searchDocuments, searchDocumentsBodySchema } from './search-documents';

/** Largest search body: a query of 2000 characters is at most 8000 bytes of UTF-8. */
const SEARCH_BODY_LIMIT = 16 * 1024;

/** What the documents API needs. */
export interface DocumentsRouterOptions {
  /** The RAG agent's documents commands; undefined without FLEET_INTERNAL_TOKEN (503). */
  documents: DocumentsClient | undefined;
  /** Largest accepted upload in bytes (`GATEWAY_UPLOAD_LIMIT`). */
  uploadLimit: number;
}

/** A document as the public API shows it (docs/architecture.md §3). */
export interface DocumentView {
  id: string;
  object: 'document';
  filename: string;
  docType: DocumentInfo['docType'];
  /** Chunks stored for it (what retrieval searches). */
  chunks: number;
  description: string;
  createdAt: string;
  /** True when only part of the document was indexed (a row, page, text or chunk limit). */
  truncated?: boolean;
  /** What was left out and which limit decided it, when `truncated`. */
  warnings?: string[];
  /**
   * True when the original file is kept (`GET /v1/documents/{id}/content` returns it); false for a
   * document stored before originals were kept. Absent when the RAG agent does not say.
   */
  original?: boolean;
}

/** The answer to an upload: the document, and whether it was already stored. */
export interface UploadedDocumentView extends DocumentView {
  /** True when the same content was already in the tenant's documents (nothing changed). */
  duplicate: boolean;
}

/** The answer to a delete, shaped like OpenAI's file deletion. */
export interface DeletedDocumentView {
  id: string;
  object: 'document';
  deleted: true;
}

/** Ids the agent hands out are UUIDs; anything else cannot name a document (404 without a call). */
const DOCUMENT_ID_PATTERN = /^[\w.-]{1,128}$/;

/** The public view of a stored document. */
export function toDocumentView(document: DocumentInfo): DocumentView {
  return {
    id: document.id,
    object: 'document',
    filename: document.filename,
    docType: document.docType,
    chunks: document.chunks,
    description: document.description,
    createdAt: document.createdAt,
    ...(document.truncated === true ? { truncated: true } : {}),
    ...(document.warnings === undefined || document.warnings.length === 0
      ? {}
      : { warnings: document.warnings }),
    ...(document.original === undefined ? {} : { original: document.original }),
  };
}

function requireDocuments(documents: DocumentsClient | undefined): DocumentsClient {
  if (documents === undefined) {
    throw new ServiceUnavailableError(
      'Documents need FLEET_INTERNAL_TOKEN, the token fleet services share, to call the RAG agent; `pnpm fleet up` sets it.',
    );
  }
  return documents;
}

/** Aborted when the client goes away before the answer, so the agent's work can stop too. */
function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * The documents API (docs/architecture.md §3), mounted on the authenticated `/v1` router. Every route
 * acts on the caller's tenant only: the RAG agent scopes each command by the tenant the gateway
 * passes, so another tenant's document is a 404 like a missing one.
 *
 * - `POST /documents` — `multipart/form-data` with one file in the field `file` (PDF, DOCX, CSV,
 *   XLSX, TXT, MD, HTML; other fields are ignored). 201 with an {@link UploadedDocumentView} for a
 *   new document; 200 with the stored one and `duplicate: true` when the same content was already
 *   there. 400 without a `file` field, with an empty file or one the agent cannot read; 415 for an
 *   unsupported kind of file; 413 over `GATEWAY_UPLOAD_LIMIT`; 503 when the RAG agent is down.
 * - `GET /documents` → `{ object: 'list', data: DocumentView[] }`, newest first.
 * - `POST /documents/search` — `{ query (1–2000 characters), limit? (1–50, default 8) }` →
 *   `{ object: 'list', data: DocumentSearchHit[], query, confidence, searchMode, warnings? }`: the
 *   passages of the tenant's documents the RAG agent's hybrid search finds, best first; 400 for a
 *   body that is not that.
 * - `DELETE /documents/:id` → 200 `{ id, object: 'document', deleted: true }`, or 404.
 * - `GET /documents/:id/content` → 200 with the original bytes (headers: `downloadHeaders`; HTML,
 *   SVG, XML and other active types as an `application/octet-stream` attachment), or 404 for an
 *   unknown id, another tenant's, or a document whose original was not kept.
 *
 * @example
 * v1.use(documentsRouter({ documents, uploadLimit: config.uploadLimit }));
 */
export function documentsRouter({ documents, uploadLimit }: DocumentsRouterOptions): Router {
  const router = express.Router();

  router.post('/documents', async function uploadDocument(req: Request, res: Response) {
    const client = requireDocuments(documents);
    const upload = await readUpload(req, { limit: uploadLimit });
    addLogFields(res, { filename: upload.filename, bytes: upload.bytes.length });
    const document = await client
      .ingest({ tenant: getTenant(res), upload, signal: clientGone(res) })
      .catch((error: unknown) => {
        throw ownPayloadLimit(error, {
          what: 'The document',
          service: 'the RAG agent',
          limit: uploadLimit,
          limitVariable: 'GATEWAY_UPLOAD_LIMIT',
          remedy: 'upload a smaller file',
        });
      });
    const duplicate = document.duplicate === true;
    addLogFields(res, { documentId: document.id, duplicate });
    const view: UploadedDocumentView = { ...toDocumentView(document), duplicate };
    res.status(duplicate ? 200 : 201).json(view);
  });

  router.post('/documents/search', async function searchTenantDocuments(req, res: Response) {
    const { value } = await readJsonBody(req, {
      limit: SEARCH_BODY_LIMIT,
      schema: searchDocumentsBodySchema,
    });
    addLogFields(res, { limit: value.limit });
    const view = await searchDocuments(documents, {
      tenant: getTenant(res),
      ...value,
      signal: clientGone(res),
    });
    addLogFields(res, { hits: view.data.length });
    res.json(view);
  });

  router.get('/documents', async function listDocuments(_req: Request, res: Response) {
    const client = requireDocuments(documents);
    const list = await client.list({ tenant: getTenant(res), signal: clientGone(res) });
    res.json({ object: 'list', data: list.map(toDocumentView) });
  });

  router.get('/documents/:id/content', async function documentContent(req: Request, res: Response) {
    const id = String(req.params['id']);
    addLogFields(res, { documentId: id });
    const client = requireDocuments(documents);
    if (!DOCUMENT_ID_PATTERN.test(id)) {
      throw new NotFoundError(`No document with id ${id}.`, { param: 'id' });
    }
    const content = await client
      .content({ tenant: getTenant(res), id, signal: clientGone(res) })
      .catch((error: unknown) => {
        // The agent's message says which: unknown (or another tenant's) or kept without bytes.
        if (FleetError.isInstance(error) && error.code === 'NOT_FOUND') {
          throw new NotFoundError(error.message, { param: 'id', cause: error });
        }
        throw error;
      });
    const { headers, attachment } = downloadHeaders({
      mediaType: content.mediaType,
      filename: content.filename,
    });
    addLogFields(res, { bytes: content.bytes.length, attachment });
    // setHeader, not express's `set`, which would add a charset the file may not have.
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.setHeader('Content-Length', content.bytes.length);
    res.status(200).end(content.bytes);
  });

  router.delete('/documents/:id', async function deleteDocument(req: Request, res: Response) {
    const id = String(req.params['id']);
    addLogFields(res, { documentId: id });
    const client = requireDocuments(documents);
    const notFound = new NotFoundError(`No document with id ${id}.`, { param: 'id' });
    if (!DOCUMENT_ID_PATTERN.test(id)) throw notFound;
    const deleted = await client.remove({ tenant: getTenant(res), id, signal: clientGone(res) });
    if (!deleted) throw notFound;
    const view: DeletedDocumentView = { id, object: 'document', deleted: true };
    res.json(view);
  });

  return router;
}
