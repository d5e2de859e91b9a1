import express, { type Request, type Response, type Router } from 'express';
import {
  isInlineImage,
  RUN_FILE_ID_PATTERN,
  runFileContentPath,
  type RunFile,
  type RunFileStore,
} from '@fleet/a2a';
import { BadRequestError, FleetError, NotFoundError, ServiceUnavailableError } from '@fleet/errors';
import { addLogFields } from '@fleet/http';
import { getTenant } from '../auth';
import { contentDisposition } from '../documents/content-disposition';
import { downloadHeaders } from '../documents/download-headers';

/** What the Files API needs. */
export interface FilesRouterOptions {
  /** The fleet's file store; undefined without FLEET_INTERNAL_TOKEN (503). */
  files: RunFileStore | undefined;
}

/**
 * A run file in the shape of OpenAI's `FileObject` (`GET /v1/files/{id}`), the fleet's own
 * fields under `fleet`. `purpose` is `assistants_output` for a file a step made and `user_data`
 * for an attachment; times are unix seconds.
 */
export interface FileObjectView {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  expires_at: number;
  filename: string;
  purpose: 'assistants_output' | 'user_data';
  status: 'processed';
  fleet: {
    mediaType: string;
    sha256: string;
    source: RunFile['source'];
    sessionId: string | null;
    nodeId: string | null;
    agent: string | null;
  };
}

/**
 * A run file as a session lists it (`GET /v1/sessions/{id}`): the {@link RunFile} and where its
 * bytes are.
 */
export interface FileView {
  id: string;
  name: string;
  mediaType: string;
  size: number;
  sha256: string;
  source: RunFile['source'];
  sessionId?: string;
  nodeId?: string;
  agent?: string;
  createdAt: string;
  expiresAt: string;
  /** The gateway path of the bytes (`/v1/files/{id}/content`; it needs the API key). */
  url: string;
}

function unixSeconds(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** A run file as OpenAI's file object. */
export function toFileObject(file: RunFile): FileObjectView {
  return {
    id: file.id,
    object: 'file',
    bytes: file.size,
    created_at: unixSeconds(file.createdAt),
    expires_at: unixSeconds(file.expiresAt),
    filename: file.name,
    purpose: file.source === 'step' ? 'assistants_output' : 'user_data',
    status: 'processed',
    fleet: {
      mediaType: file.mediaType,
      sha256: file.sha256,
      source: file.source,
      sessionId: file.sessionId ?? null,
      nodeId: file.nodeId ?? null,
      agent: file.agent ?? null,
    },
  };
}

/** A run file with its content path, for the session view. */
export function toFileView(file: RunFile): FileView {
  return {
    id: file.id,
    name: file.name,
    mediaType: file.mediaType,
    size: file.size,
    sha256: file.sha256,
    source: file.source,
    ...(file.sessionId === undefined ? {} : { sessionId: file.sessionId }),
    ...(file.nodeId === undefined ? {} : { nodeId: file.nodeId }),
    ...(file.agent === undefined ? {} : { agent: file.agent }),
    createdAt: file.createdAt,
    expiresAt: file.expiresAt,
    url: runFileContentPath(file.id),
  };
}

/**
 * Response headers for a run file's bytes: its media type shown inline only for the inline image
 * types (PNG, JPEG, GIF, WebP); everything else an attachment, and active types (HTML, SVG)
 * served as `application/octet-stream` so a browser never renders them on the gateway's origin.
 * Always `nosniff`, a sandboxing CSP and `Cache-Control: private, no-store`.
 */
export function runFileHeaders(file: Pick<RunFile, 'mediaType' | 'name'>): Record<string, string> {
  const { headers } = downloadHeaders({ mediaType: file.mediaType, filename: file.name });
  const inline = isInlineImage(file.mediaType) && headers['Content-Type'] === file.mediaType;
  return {
    ...headers,
    'Content-Disposition': contentDisposition({
      type: inline ? 'inline' : 'attachment',
      filename: file.name,
    }),
  };
}

function requireFiles(files: RunFileStore | undefined): RunFileStore {
  if (files === undefined) {
    throw new ServiceUnavailableError(
      'Run files need FLEET_INTERNAL_TOKEN and the RAG agent (RAG_AGENT_URL), which keeps them; `pnpm fleet up` sets both.',
    );
  }
  return files;
}

/** Aborted when the client goes away before the answer. */
function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** The `:id` of a request, checked: a malformed id is a 404 like an unknown one. */
function fileId(req: Request, res: Response): string {
  const id = String(req.params['id']);
  addLogFields(res, { fileId: id });
  if (!RUN_FILE_ID_PATTERN.test(id)) {
    throw new NotFoundError(`No file with id ${id}.`, { param: 'id' });
  }
  return id;
}

/** The store's not-found (unknown, another tenant's, expired) as the API's 404 naming `id`. */
function notFound(id: string) {
  return (error: unknown): never => {
    if (FleetError.isInstance(error) && error.code === 'NOT_FOUND') {
      throw new NotFoundError(`No file with id ${id}.`, { param: 'id', cause: error });
    }
    throw error;
  };
}

/**
 * The Files API for run files (docs/files.md), mounted on the authenticated `/v1` router, in
 * OpenAI's shape so `client.files.retrieve(id)` and `client.files.content(id)` work. Every route
 * reads the caller's tenant only: another tenant's id, an expired, unknown or malformed one is a
 * 404.
 *
 * - `GET /files/:id` → {@link FileObjectView}.
 * - `GET /files/:id/content` → the bytes ({@link runFileHeaders}).
 * - `GET /files?session_id=…` → `{ object: 'list', data: FileObjectView[] }`, oldest first.
 */
export function filesRouter({ files }: FilesRouterOptions): Router {
  const router = express.Router();

  router.get('/files', async function listFiles(req: Request, res: Response) {
    const store = requireFiles(files);
    const sessionId = req.query['session_id'];
    if (typeof sessionId !== 'string' || sessionId === '' || sessionId.length > 200) {
      throw new BadRequestError(
        "GET /v1/files lists one session's files: add ?session_id=<session id>.",
        { param: 'session_id' },
      );
    }
    const list = await store.list({
      tenant: getTenant(res),
      sessionId,
      signal: clientGone(res),
    });
    res.json({ object: 'list', data: list.map(toFileObject), has_more: false });
  });

  router.get('/files/:id', async function retrieveFile(req: Request, res: Response) {
    const id = fileId(req, res);
    const store = requireFiles(files);
    const file = await store
      .info({ tenant: getTenant(res), id, signal: clientGone(res) })
      .catch(notFound(id));
    res.json(toFileObject(file));
  });

  router.get('/files/:id/content', async function fileContent(req: Request, res: Response) {
    const id = fileId(req, res);
    const store = requireFiles(files);
    const { file, bytes } = await store
      .get({ tenant: getTenant(res), id, signal: clientGone(res) })
      .catch(notFound(id));
    const headers = runFileHeaders(file);
    addLogFields(res, { bytes: bytes.length, disposition: headers['Content-Disposition'] });
    // setHeader, not express's `set`, which would add a charset the file may not have.
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.setHeader('Content-Length', bytes.length);
    res.status(200).end(bytes);
  });

  return router;
}
