import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import {
  DOCUMENT_METADATA_HEADER,
  encodeContentMetadata,
  RUN_FILE_METADATA_HEADER,
  runFileIdSchema,
  type DocumentContentMetadata,
  type RunFileStore,
} from '@fleet/a2a';
import { NotFoundError } from '@fleet/errors';
import { boundedValidationError } from '@fleet/http';
import type { DocumentService } from './documents';
import { MAX_RUN_FILE_LABEL_LENGTH } from './store';

/** The query of both byte routes: whose file it is. */
const contentQuerySchema = z.object({
  tenant: z.string().min(1).max(MAX_RUN_FILE_LABEL_LENGTH),
});

/** The id path parameter, before it is checked against the kind of id it names. */
const idParamsSchema = z.object({ id: z.string() });

/** Longest id an error message repeats (a malformed one can be long). */
const MAX_ECHOED_ID = 100;

/** Options for {@link contentRouter}. */
export interface ContentRouterOptions {
  /** The run file store: serves `/files/:id/content`. Absent: that route is not found. */
  runFiles?: Pick<RunFileStore, 'get'> | undefined;
  /** The documents: serves `/documents/:id/content`. Absent: that route is not found. */
  documents?: Pick<DocumentService, 'get'> | undefined;
}

function tenantOf(req: Request): string {
  const query = contentQuerySchema.safeParse(req.query);
  if (!query.success) throw boundedValidationError(query.error, { subject: 'The query' });
  return query.data.tenant;
}

function idOf(req: Request): string {
  return idParamsSchema.parse(req.params).id;
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

/**
 * The RAG agent's byte routes, for the fleet's services (mounted at `/internal` behind the internal
 * token: `createAgentApp`'s `internalRoutes`). They read what the `files` and `documents` `get`
 * commands read, without an A2A task: nothing is kept in the task store, and the bytes travel as
 * they are, not base64 inside JSON.
 *
 * - `GET /files/:id/content?tenant=` — a run file's bytes; its `RunFile` in `X-Fleet-File`.
 * - `GET /documents/:id/content?tenant=` — a document's original bytes;
 *   `{ document, filename, mediaType }` in `X-Fleet-Document`.
 *
 * Both answer `application/octet-stream` with `Content-Length`, and the header as base64url of
 * the JSON. An unknown id, a malformed one, another tenant's or an expired file is 404; no tenant
 * is 400; a database that cannot be reached is the retryable 503 with `Retry-After`; all in the
 * fleet's JSON error body.
 *
 * @example
 * createAgentApp({ ..., internalRoutes: contentRouter({ runFiles, documents }) });
 */
export function contentRouter({ runFiles, documents }: ContentRouterOptions): Router {
  const router = Router();

  if (runFiles !== undefined) {
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
