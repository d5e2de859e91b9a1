import { z } from 'zod';
import {
  DOCUMENT_METADATA_HEADER,
  documentContentMetadataSchema,
  documentContentRoute,
  documentInfoSchema,
  documentSearchResultSchema,
  documentSearchRoute,
  type DocumentInfo,
  type DocumentSearchRequest,
  type DocumentSearchResult,
  type DocumentsCommand,
  type Part,
  type Task,
} from '@fleet/a2a';
import {
  createTaskFailures,
  readInternalContent,
  resultArtifactParts,
  sendInternalRequest,
  typedFailure,
  type A2AClient,
  type TaskFailures,
} from '@fleet/a2a/client';
import {
  type FleetError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  UpstreamError,
  ValidationError,
} from '@fleet/errors';
import type { Upload } from './read-upload';

/** The RAG agent's answer to `ingest` and `list` (the `result` artifact's data part). */
const documentListSchema = z.object({ documents: z.array(documentInfoSchema) });
/** The RAG agent's answer to `delete`. */
const deletedSchema = z.object({ deleted: z.boolean() });
/** The RAG agent's answer to `get` (beside the file part with the bytes). */
const documentSchema = z.object({ document: documentInfoSchema });

/** A document's original bytes, as the RAG agent keeps them. */
export interface DocumentContent {
  document: DocumentInfo;
  bytes: Buffer;
  /** The media type the agent keeps with the bytes; undefined when it sent none. */
  mediaType: string | undefined;
  /** The document's filename (the file part's, else the document's). */
  filename: string;
}

/** Document management on the RAG agent, for one tenant at a time. */
export interface DocumentsClient {
  /**
   * Ingests one file into the tenant's documents. Resolves to the stored document (`duplicate:
   * true` when the same content was already there).
   *
   * @throws ValidationError (400) or UnsupportedMediaTypeError (415) when the agent cannot read the
   *   file; ServiceUnavailableError (503) when the agent is unreachable.
   */
  ingest(input: { tenant: string; upload: Upload; signal?: AbortSignal }): Promise<DocumentInfo>;
  /** The tenant's documents, newest first. */
  list(input: { tenant: string; signal?: AbortSignal }): Promise<DocumentInfo[]>;
  /** Removes one of the tenant's documents with its chunks; false when it has none by that id. */
  remove(input: { tenant: string; id: string; signal?: AbortSignal }): Promise<boolean>;
  /**
   * One of the tenant's documents with its original bytes.
   *
   * @throws NotFoundError (404) for an unknown id, another tenant's, or a document whose bytes the
   *   agent did not keep; PayloadTooLargeError (413) for bytes over the agent's limit;
   *   ServiceUnavailableError (503) when the agent is unreachable.
   */
  content(input: { tenant: string; id: string; signal?: AbortSignal }): Promise<DocumentContent>;
  /**
   * The passages of the tenant's documents that best match `query` (the `search` skill's hybrid
   * search), best first, at most `limit`; over the agent's search route, so no A2A task is kept.
   *
   * @throws ServiceUnavailableError (503) when the client has no search route (`contentUrl`) or the
   *   agent is unreachable; ValidationError (400) when the agent refuses the query.
   */
  search(
    input: DocumentSearchRequest & { tenant: string; signal?: AbortSignal },
  ): Promise<DocumentSearchResult>;
}

/** Options for {@link createDocumentsClient}. */
export interface CreateDocumentsClientOptions {
  /** An A2A client for the RAG agent's JSON-RPC endpoint, with the internal token. */
  client: A2AClient;
  /** The agent's base URL, named in errors (`RAG_AGENT_URL`). */
  agentUrl: string;
  /**
   * How long one ingest may take: parsing, embedding, storing. @default 240000
   */
  ingestTimeoutMs?: number;
  /** How long a list or delete may take. @default 30000 */
  timeoutMs?: number;
  /** How long reading back one document's bytes may take. @default 60000 */
  contentTimeoutMs?: number;
  /** How long one search may take: embedding the query, searching, re-ranking. @default 30000 */
  searchTimeoutMs?: number;
  /**
   * The agent's base URL for its byte route (`GET /internal/documents/:id/content`, with
   * `token`): `content` reads the bytes there in one plain HTTP request, which leaves no A2A task
   * (and no base64 copy of the document) in the agent's task store; `search` posts to its search
   * route (`POST /internal/search`). Absent: `content` sends the A2A `get` command, and `search`
   * answers 503.
   */
  contentUrl?: string | undefined;
  /** The internal token the byte route needs (`FLEET_INTERNAL_TOKEN`); required with `contentUrl`. */
  token?: string | undefined;
  /**
   * Largest original `content` accepts over the byte route (the agent refuses larger ones itself:
   * RAG_MAX_UPLOAD_BYTES). @default 268435456 (256 MiB)
   */
  maxContentBytes?: number;
  /** `fetch` for the byte route. @default the shared balanced fetch (`@fleet/http`) */
  fetch?: typeof fetch | undefined;
}

/** Largest search answer read: 50 passages of a few KiB each, with room to spare. */
const MAX_SEARCH_ANSWER_BYTES = 4 * 1024 * 1024;

/** The largest original read over the byte route when `maxContentBytes` is not given. */
const DEFAULT_MAX_CONTENT_BYTES = 256 * 1024 * 1024;

// The agent's messages for unreadable files (R1's UnsupportedDocumentError) when it sends no error
// code: the wording of "this kind of file is not supported".
const UNSUPPORTED_PATTERN = /unsupported|not (a )?supported|unknown (file|document) type/i;

/**
 * The typed error of a FAILED ingest: the error body the agent attached (a data part `{ error: {
 * code, message } }`), else 415 for an unsupported file and 400 for any other file it could not
 * read — the contract's failures of an ingest are the file's.
 */
function ingestFailure(task: Task, failures: TaskFailures): FleetError {
  const typed = typedFailure(task);
  if (typed !== undefined) return typed;
  const message = failures.failureMessage(task);
  return UNSUPPORTED_PATTERN.test(message)
    ? new UnsupportedMediaTypeError(message)
    : new ValidationError(message, { param: 'file' });
}

/** What an A2A failure means to someone uploading a document, for the agent at `agentUrl`. */
function documentsTaskFailures(agentUrl: string): TaskFailures {
  return createTaskFailures({
    who: 'The RAG agent',
    agentUrl,
    unreachableHint:
      'start the fleet with `pnpm fleet up` (or the agent with `docker compose up -d rag-agent`), or point RAG_AGENT_URL at it.',
    tokenHint: 'the gateway and the agent need the same FLEET_INTERNAL_TOKEN.',
    explained: {
      // The agent's own limit stays in the cause (for the logs); the client hears the gateway's.
      PAYLOAD_TOO_LARGE: (cause) =>
        new PayloadTooLargeError(
          "The document is too large for the RAG agent to take, although it is within the gateway's upload limit (GATEWAY_UPLOAD_LIMIT): upload a smaller file.",
          { cause },
        ),
    },
  });
}

/** The RAG agent's A2A endpoint, with what its failures mean. */
interface DocumentsAgent {
  client: A2AClient;
  failures: TaskFailures;
}

/**
 * Sends one documents command as a blocking `SendMessage` and resolves to its completed task; a
 * failed or otherwise ended task is thrown as its typed error.
 */
async function sendCommand(
  { client, failures }: DocumentsAgent,
  {
    command,
    files = [],
    signal,
    callTimeoutMs,
  }: {
    command: DocumentsCommand;
    files?: Part[];
    signal: AbortSignal | undefined;
    callTimeoutMs: number;
  },
): Promise<Task> {
  const reply = await failures.send(client, {
    op: command.op,
    data: { documents: command },
    parts: files,
    signal,
    timeoutMs: callTimeoutMs,
  });
  if (reply.status.state === 'TASK_STATE_COMPLETED') return reply;
  if (reply.status.state === 'TASK_STATE_FAILED' && command.op === 'ingest') {
    throw ingestFailure(reply, failures);
  }
  // A list or delete that failed with the agent's own typed error (e.g. its database is
  // unreachable: 503 with Retry-After) keeps it.
  const typed = typedFailure(reply);
  if (reply.status.state === 'TASK_STATE_FAILED' && typed !== undefined) throw typed;
  throw failures.ended(reply, command.op);
}

/** The RAG agent's plain HTTP routes (search, a document's bytes), with the internal token. */
interface DocumentsRoutes {
  baseUrl: string;
  token: string;
  fetch: typeof fetch | undefined;
}

/** Searches the tenant's documents over the agent's search route. */
async function searchOverRoute(
  routes: DocumentsRoutes,
  {
    tenant,
    query,
    limit,
    signal,
    timeoutMs,
  }: DocumentSearchRequest & { tenant: string; signal?: AbortSignal; timeoutMs: number },
): Promise<DocumentSearchResult> {
  const body: DocumentSearchRequest = { query, limit };
  return sendInternalRequest({
    baseUrl: routes.baseUrl,
    path: documentSearchRoute(tenant),
    method: 'POST',
    token: routes.token,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(body), 'utf8'),
    schema: documentSearchResultSchema,
    maxAnswerBytes: MAX_SEARCH_ANSWER_BYTES,
    timeoutMs,
    signal,
    fetch: routes.fetch,
    service: 'The RAG agent',
    what: 'a document search',
  });
}

/** Reads one document's original bytes over the agent's byte route (no A2A task kept). */
async function contentOverRoute(
  routes: DocumentsRoutes,
  {
    tenant,
    id,
    signal,
    maxBytes,
    timeoutMs,
  }: { tenant: string; id: string; signal?: AbortSignal; maxBytes: number; timeoutMs: number },
): Promise<DocumentContent> {
  const { metadata, bytes } = await readInternalContent({
    baseUrl: routes.baseUrl,
    path: documentContentRoute(id, tenant),
    token: routes.token,
    header: DOCUMENT_METADATA_HEADER,
    schema: documentContentMetadataSchema,
    maxBytes,
    timeoutMs,
    signal,
    fetch: routes.fetch,
    service: 'The RAG agent',
    what: `document ${id}`,
  });
  if (metadata.document.id !== id) {
    throw new UpstreamError(
      `The RAG agent answered a read of document ${id} with document ${metadata.document.id}.`,
      { status: 502 },
    );
  }
  return { ...metadata, bytes };
}

/** Reads one document's original bytes with the A2A `get` command (its file part, base64). */
async function contentOverA2A(
  agent: DocumentsAgent,
  {
    tenant,
    id,
    signal,
    timeoutMs,
  }: { tenant: string; id: string; signal?: AbortSignal; timeoutMs: number },
): Promise<DocumentContent> {
  const task = await sendCommand(agent, {
    command: { op: 'get', tenant, id },
    signal,
    callTimeoutMs: timeoutMs,
  });
  const { document } = agent.failures.resultData(task, documentSchema, 'get');
  const file = resultArtifactParts(task)?.find((part) => part.raw !== undefined);
  if (file?.raw === undefined || document.id !== id) {
    throw new UpstreamError(
      `The RAG agent's get result for document ${id} carries no file part for it.`,
      { status: 502 },
    );
  }
  return {
    document,
    bytes: Buffer.from(file.raw, 'base64'),
    mediaType: file.mediaType,
    filename: file.filename ?? document.filename,
  };
}

/**
 * A client for the RAG agent's documents commands (`documentsCommandSchema` in `@fleet/a2a`): one
 * blocking `SendMessage` per call, the tenant in the command, the file as a `raw` part. With
 * `contentUrl`, `content` reads the original from the agent's byte route instead (`GET
 * /internal/documents/:id/content`: no task kept in the agent's task store).
 *
 * @example
 * const documents = createDocumentsClient({
 *   client: new A2AClient({ url: `${config.ragAgentUrl}/a2a`, token: config.internalToken }),
 *   agentUrl: config.ragAgentUrl,
 *   contentUrl: config.ragAgentUrl,
 *   token: config.internalToken,
 * });
 * const info = await documents.ingest({ tenant, upload });
 */
export function createDocumentsClient({
  client,
  agentUrl,
  ingestTimeoutMs = 240_000,
  timeoutMs = 30_000,
  contentTimeoutMs = 60_000,
  searchTimeoutMs = 30_000,
  contentUrl,
  token,
  maxContentBytes = DEFAULT_MAX_CONTENT_BYTES,
  fetch: fetchImpl,
}: CreateDocumentsClientOptions): DocumentsClient {
  if (contentUrl !== undefined && token === undefined) {
    throw new TypeError('createDocumentsClient: contentUrl needs the internal token (token).');
  }
  const failures = documentsTaskFailures(agentUrl);
  const agent: DocumentsAgent = { client, failures };
  const routes: DocumentsRoutes | undefined =
    contentUrl !== undefined && token !== undefined
      ? { baseUrl: contentUrl, token, fetch: fetchImpl }
      : undefined;

  return {
    async ingest({ tenant, upload, signal }) {
      const task = await sendCommand(agent, {
        command: { op: 'ingest', tenant },
        files: [
          {
            raw: upload.bytes.toString('base64'),
            filename: upload.filename,
            mediaType: upload.mediaType,
          },
        ],
        signal,
        callTimeoutMs: ingestTimeoutMs,
      });
      const [document] = failures.resultData(task, documentListSchema, 'ingest').documents;
      if (document === undefined) {
        throw new UpstreamError('The RAG agent ingested the file but reported no document.', {
          status: 502,
        });
      }
      return document;
    },
    async list({ tenant, signal }) {
      const task = await sendCommand(agent, {
        command: { op: 'list', tenant },
        signal,
        callTimeoutMs: timeoutMs,
      });
      return failures.resultData(task, documentListSchema, 'list').documents;
    },
    async remove({ tenant, id, signal }) {
      const task = await sendCommand(agent, {
        command: { op: 'delete', tenant, id },
        signal,
        callTimeoutMs: timeoutMs,
      });
      return failures.resultData(task, deletedSchema, 'delete').deleted;
    },
    async search({ tenant, query, limit, signal }) {
      if (routes === undefined) {
        throw new ServiceUnavailableError(
          `Searching documents needs the RAG agent's search route at ${agentUrl}: the gateway reaches it with RAG_AGENT_URL and FLEET_INTERNAL_TOKEN.`,
        );
      }
      return searchOverRoute(routes, {
        tenant,
        query,
        limit,
        ...(signal === undefined ? {} : { signal }),
        timeoutMs: searchTimeoutMs,
      });
    },
    async content({ tenant, id, signal }) {
      const request = { tenant, id, ...(signal === undefined ? {} : { signal }) };
      if (routes !== undefined) {
        return contentOverRoute(routes, {
          ...request,
          maxBytes: maxContentBytes,
          timeoutMs: contentTimeoutMs,
        });
      }
      return contentOverA2A(agent, { ...request, timeoutMs: contentTimeoutMs });
    },
  };
}
