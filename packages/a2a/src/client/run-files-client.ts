import { z } from 'zod';
import { FleetError, NotFoundError, UpstreamError, ValidationError } from '@fleet/errors';
import {
  encodeContentMetadata,
  RUN_FILE_METADATA_HEADER,
  RUN_FILE_PUT_HEADER,
  runFileContentRoute,
  runFileRoute,
  runFilesRoute,
  type RunFilePutMetadata,
} from '../fleet/content-route';
import {
  cleanRunFileName,
  RUN_FILE_ID_PATTERN,
  runFileSchema,
  type FilesCommand,
  type RunFile,
  type RunFileStore,
  type RunFileUpload,
} from '../fleet/files';
import type { Part, Task } from '../schemas/core';
import type { A2AClient } from './a2a-client';
import { readInternalContent } from './read-internal-content';
import { sendInternalRequest } from './send-internal-request';
import {
  createTaskFailures,
  resultArtifactParts,
  typedFailure,
  type TaskFailures,
} from './task-failures';

/** The agent's answer to `put` and `list`. */
const filesSchema = z.object({ files: z.array(runFileSchema) });
/** The agent's answer to `get` (beside the file part) and `info`. */
const fileSchema = z.object({ file: runFileSchema });
/** The agent's answer to `delete`. */
const deletedSchema = z.object({ deleted: z.boolean() });

/**
 * The largest file a `get` reads over the byte route when `maxFileBytes` is not given: the most
 * RAG_MAX_RUN_FILE_BYTES allows (256 MiB). The file's own size (its metadata) bounds it first.
 */
export const DEFAULT_MAX_READ_FILE_BYTES = 256 * 1024 * 1024;

/** Most files one `put` keeps: the store's own limit, checked before anything is sent. */
const MAX_FILES_PER_PUT = 64;

/** Who answers the byte routes, for errors. */
const FILE_STORE = 'The file store (the RAG agent)';

/** Where and how a client reaches the file store's byte routes. */
interface FileRoutes {
  url: string;
  token: string;
  timeoutMs: number;
  fetch: typeof fetch | undefined;
}

/**
 * A put's failure as the caller sees it: a `ValidationError` from the store that does not name
 * the file is made to name it; a `NotFoundError` (an agent whose version has no write route) is
 * the agent's fault (502), not a missing file.
 */
function namingFile(error: unknown, name: string, agentUrl: string): unknown {
  if (!FleetError.isInstance(error)) return error;
  if (error.code === 'NOT_FOUND') {
    return new UpstreamError(
      `${FILE_STORE} at ${agentUrl} has no POST /internal/files (is it an older version?).`,
      { status: 502, cause: error },
    );
  }
  if (error.code !== 'VALIDATION_FAILED') return error;
  if (error.message.includes(name)) return error;
  return new ValidationError(`${name}: ${error.message}`, {
    cause: error,
    ...(error.param === undefined ? {} : { param: error.param }),
    details: { ...error.details, filename: name },
  });
}

/**
 * Deletes files this client just kept, over `DELETE /internal/files/:id`, to keep a put all or
 * none; a file that cannot be deleted is left to expire (the put's failure is what is reported).
 */
async function removeKept(routes: FileRoutes, tenant: string, kept: readonly RunFile[]) {
  await Promise.all(
    kept.map((file) =>
      sendInternalRequest({
        baseUrl: routes.url,
        path: runFileRoute(file.id, tenant),
        method: 'DELETE',
        token: routes.token,
        schema: deletedSchema,
        timeoutMs: routes.timeoutMs,
        fetch: routes.fetch,
        service: FILE_STORE,
        what: `the removal of ${file.id}`,
      }).catch(() => undefined),
    ),
  );
}

/**
 * Keeps files one by one over the file store's byte route (`POST /internal/files`: the raw bytes
 * as the body, what they are in `X-Fleet-File-Put`), which leaves no A2A task (and no base64 copy
 * of the files) in the store agent's task store; all or none: when one fails, the ones already
 * kept are deleted before its error is thrown.
 */
async function putOverRoute(
  routes: FileRoutes,
  {
    tenant,
    files,
    signal,
    ...labels
  }: Omit<RunFilePutMetadata, 'name' | 'mediaType'> & {
    tenant: string;
    files: readonly RunFileUpload[];
    signal?: AbortSignal | undefined;
  },
): Promise<RunFile[]> {
  const kept: RunFile[] = [];
  try {
    for (const [index, upload] of files.entries()) {
      const name = cleanRunFileName(upload.name, `file-${index + 1}`);
      const metadata: RunFilePutMetadata = {
        name: upload.name,
        mediaType: upload.mediaType,
        ...labels,
      };
      try {
        kept.push(
          await sendInternalRequest({
            baseUrl: routes.url,
            path: runFilesRoute(tenant),
            method: 'POST',
            token: routes.token,
            headers: {
              'content-type': 'application/octet-stream',
              [RUN_FILE_PUT_HEADER]: encodeContentMetadata(metadata),
            },
            body: upload.bytes,
            schema: runFileSchema,
            timeoutMs: routes.timeoutMs,
            signal,
            fetch: routes.fetch,
            service: FILE_STORE,
            what: name,
          }),
        );
      } catch (error) {
        throw namingFile(error, name, routes.url);
      }
    }
  } catch (error) {
    await removeKept(routes, tenant, kept);
    throw error;
  }
  return kept;
}

/** The file store agent's A2A endpoint, with what its failures mean and how long a call may take. */
interface FileStoreAgent {
  client: A2AClient;
  failures: TaskFailures;
  timeoutMs: number;
}

/** Sends one `files` command and resolves to its completed task; any other ending is thrown. */
async function sendCommand(
  { client, failures, timeoutMs }: FileStoreAgent,
  command: FilesCommand,
  { signal, parts = [] }: { signal: AbortSignal | undefined; parts?: Part[] },
): Promise<Task> {
  const reply = await failures.send(client, {
    op: command.op,
    data: { files: command },
    parts,
    signal,
    timeoutMs,
  });
  if (reply.status.state === 'TASK_STATE_COMPLETED') return reply;
  const typed = typedFailure(reply);
  if (typed !== undefined) throw typed;
  throw failures.ended(reply, command.op);
}

/** An id that cannot be a run file's is not found, without asking the store. */
function checkId(id: string): void {
  if (!RUN_FILE_ID_PATTERN.test(id)) throw new NotFoundError(`There is no file ${id}.`);
}

/** Keeps files with the A2A `put` command, their bytes as base64 `raw` parts. */
async function putOverA2A(
  store: FileStoreAgent,
  { files, signal, ...command }: Parameters<RunFileStore['put']>[0],
): Promise<RunFile[]> {
  const task = await sendCommand(
    store,
    { op: 'put', ...command },
    {
      signal,
      parts: files.map((file) => ({
        raw: Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength).toString(
          'base64',
        ),
        filename: file.name,
        mediaType: file.mediaType,
      })),
    },
  );
  const kept = store.failures.resultData(task, filesSchema, 'put').files;
  if (kept.length !== files.length) {
    throw new UpstreamError(
      `The file store kept ${kept.length} of ${files.length} files without saying why.`,
      { status: 502 },
    );
  }
  return kept;
}

/** Reads one run file's bytes over the byte route (no A2A task kept). */
async function getOverRoute(
  routes: FileRoutes,
  {
    tenant,
    id,
    signal,
    maxBytes,
  }: { tenant: string; id: string; signal: AbortSignal | undefined; maxBytes: number },
): Promise<{ file: RunFile; bytes: Buffer }> {
  const { metadata: file, bytes } = await readInternalContent({
    baseUrl: routes.url,
    path: runFileContentRoute(id, tenant),
    token: routes.token,
    header: RUN_FILE_METADATA_HEADER,
    schema: runFileSchema,
    maxBytes,
    sizeOf: (metadata) => metadata.size,
    timeoutMs: routes.timeoutMs,
    signal,
    fetch: routes.fetch,
    service: 'The file store (the RAG agent)',
    what: `file ${id}`,
  });
  if (file.id !== id) {
    throw new UpstreamError(`The file store answered a read of ${id} with ${file.id}.`, {
      status: 502,
    });
  }
  return { file, bytes };
}

/** Reads one run file's bytes with the A2A `get` command (its file part, base64). */
async function getOverA2A(
  store: FileStoreAgent,
  { tenant, id, signal }: { tenant: string; id: string; signal: AbortSignal | undefined },
): Promise<{ file: RunFile; bytes: Buffer }> {
  const task = await sendCommand(store, { op: 'get', tenant, id }, { signal });
  const { file } = store.failures.resultData(task, fileSchema, 'get');
  const part = resultArtifactParts(task)?.find((candidate) => candidate.raw !== undefined);
  if (part?.raw === undefined || file.id !== id) {
    throw new UpstreamError(`The file store's get result for ${id} carries no file part.`, {
      status: 502,
    });
  }
  return { file, bytes: Buffer.from(part.raw, 'base64') };
}

/** Options for {@link createRunFilesClient}. */
export interface CreateRunFilesClientOptions {
  /** An A2A client for the file store agent's JSON-RPC endpoint (the RAG agent), with the token. */
  client: A2AClient;
  /** The agent's base URL, named in errors. */
  agentUrl: string;
  /** How long one command may take (a put of large files included). @default 60000 */
  timeoutMs?: number;
  /**
   * The agent's base URL for its byte route (`GET /internal/files/:id/content`, with `token`):
   * `get` reads the bytes there in one plain HTTP request, which leaves no A2A task (and no base64
   * copy of the file) in the agent's task store; `put` sends each file to `POST /internal/files`
   * the same way. Absent: `get` and `put` send the A2A commands.
   */
  contentUrl?: string | undefined;
  /** The internal token the byte route needs (`FLEET_INTERNAL_TOKEN`); required with `contentUrl`. */
  token?: string | undefined;
  /** Largest file `get` accepts over the byte route. @default 268435456 (256 MiB) */
  maxFileBytes?: number;
  /** `fetch` for the byte route. @default the shared balanced fetch (`@fleet/http`) */
  fetch?: typeof fetch | undefined;
}

/**
 * The fleet's run files through the `files` commands of the agent that keeps them (the RAG
 * agent: `filesCommandSchema`; find it with `filesAgentOf`): one blocking `SendMessage` per call,
 * the tenant in the command, the bytes as `raw` file parts. With `contentUrl`, `get` reads the bytes
 * from the agent's byte route instead (`GET /internal/files/:id/content`: one plain HTTP request,
 * no task kept for a week in the agent's task store), and `put` sends each file's raw bytes to
 * `POST /internal/files` (all or none: the files already kept are deleted, over
 * `DELETE /internal/files/:id`, when a later one fails). The agent's typed failures come back
 * as the same errors (`NotFoundError` for an unknown, foreign or expired id, `ValidationError`
 * naming a refused file, `PayloadTooLargeError`, the retryable `ServiceUnavailableError` of a
 * database that is down); an agent that cannot be reached, or that refuses the internal token, is
 * `ServiceUnavailableError`; one that does not answer in time `UpstreamTimeoutError`; a malformed
 * answer `UpstreamError` (502).
 *
 * @example
 * const files = createRunFilesClient({
 *   client: new A2AClient({ url: `${agent.url}/a2a`, token: config.internalToken }),
 *   agentUrl: agent.url,
 *   contentUrl: agent.url,
 *   token: config.internalToken,
 * });
 * const [chart] = await files.put({ tenant, files: [{ name: 'chart.png', mediaType: 'image/png', bytes }], source: 'step', expiresAt });
 */
export function createRunFilesClient({
  client,
  agentUrl,
  timeoutMs = 60_000,
  contentUrl,
  token,
  maxFileBytes = DEFAULT_MAX_READ_FILE_BYTES,
  fetch: fetchImpl,
}: CreateRunFilesClientOptions): RunFileStore {
  if (contentUrl !== undefined && token === undefined) {
    throw new TypeError('createRunFilesClient: contentUrl needs the internal token (token).');
  }
  const content =
    contentUrl === undefined || token === undefined ? undefined : { url: contentUrl, token };
  const failures = createTaskFailures({
    who: 'The file store',
    whoInFull: 'The file store (the RAG agent)',
    agentUrl,
    unreachableHint: 'start it, or point the fleet at it.',
    tokenHint: 'the services need the same FLEET_INTERNAL_TOKEN.',
  });

  const store: FileStoreAgent = { client, failures, timeoutMs };

  return {
    async put({ tenant, files, sessionId, nodeId, agent, source, expiresAt, signal }) {
      if (files.length === 0) {
        throw new ValidationError('A put needs at least one file.', { param: 'files' });
      }
      if (content !== undefined) {
        if (files.length > MAX_FILES_PER_PUT) {
          throw new ValidationError(
            `A put keeps at most ${MAX_FILES_PER_PUT} files; this one has ${files.length}.`,
            { param: 'files', details: { files: files.length, limit: MAX_FILES_PER_PUT } },
          );
        }
        return putOverRoute(
          { url: content.url, token: content.token, timeoutMs, fetch: fetchImpl },
          {
            tenant,
            files,
            ...(sessionId === undefined ? {} : { sessionId }),
            ...(nodeId === undefined ? {} : { nodeId }),
            ...(agent === undefined ? {} : { agent }),
            source,
            expiresAt,
            signal,
          },
        );
      }
      return putOverA2A(store, {
        tenant,
        files,
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(nodeId === undefined ? {} : { nodeId }),
        ...(agent === undefined ? {} : { agent }),
        source,
        expiresAt,
        signal,
      });
    },
    async get({ tenant, id, signal }) {
      checkId(id);
      if (content !== undefined) {
        return getOverRoute(
          { url: content.url, token: content.token, timeoutMs, fetch: fetchImpl },
          { tenant, id, signal, maxBytes: maxFileBytes },
        );
      }
      return getOverA2A(store, { tenant, id, signal });
    },
    async info({ tenant, id, signal }): Promise<RunFile> {
      checkId(id);
      const task = await sendCommand(store, { op: 'info', tenant, id }, { signal });
      return failures.resultData(task, fileSchema, 'info').file;
    },
    async list({ tenant, sessionId, signal }) {
      const task = await sendCommand(store, { op: 'list', tenant, sessionId }, { signal });
      return failures.resultData(task, filesSchema, 'list').files;
    },
    async remove({ tenant, id, signal }) {
      if (!RUN_FILE_ID_PATTERN.test(id)) return false;
      const task = await sendCommand(store, { op: 'delete', tenant, id }, { signal });
      return failures.resultData(task, deletedSchema, 'delete').deleted;
    },
  };
}
