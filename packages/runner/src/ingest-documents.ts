import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import {
  createMessage,
  dataPart,
  documentInfoSchema,
  findData,
  partsText,
  RESULT_ARTIFACT_NAME,
  type DocumentInfo,
  type Task,
} from '@fleet/a2a';
import type { A2AClient } from '@fleet/a2a/client';
import {
  FleetError,
  isConnectFailure,
  networkErrorCode,
  ServiceUnavailableError,
} from '@fleet/errors';
import { documentMediaType } from './document-files';

/** The RAG agent's answer to `ingest` (the `result` artifact's data part). */
const ingestResultSchema = z.object({ documents: z.array(documentInfoSchema) });

/** The error data part of a failed task's status message, as far as the runner reads it. */
const failureDataSchema = z.looseObject({ error: z.looseObject({ code: z.string() }) });

/** What happened to one file. */
export type IngestOutcome =
  | { file: string; status: 'ingested'; document: DocumentInfo }
  /** The same content was already stored for the tenant: nothing changed. */
  | { file: string; status: 'duplicate'; document: DocumentInfo }
  | {
      file: string;
      status: 'failed';
      error: string;
      /** The agent's error code (`SERVICE_UNAVAILABLE`, `PAYLOAD_TOO_LARGE`, …), when it gave one. */
      code?: string;
    };

/** Options for {@link ingestDocuments}. */
export interface IngestDocumentsOptions {
  /** A client for the RAG agent's JSON-RPC endpoint, with the internal token. */
  client: A2AClient;
  /** The agent's base URL, named in errors. */
  agentUrl: string;
  /** The tenant whose documents the files become. */
  tenant: string;
  /** Absolute paths, sent one at a time in this order. */
  files: readonly string[];
  /** Called before each file is sent. */
  onStart?: (file: string, index: number) => void;
  /** Called with each file's outcome. */
  onResult?: (outcome: IngestOutcome, index: number) => void;
  /**
   * How long one file may take (parse, embed, store). @default 240000
   */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Files are read whole and sent base64-encoded; beyond this the agent would refuse them anyway. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

function describeFailure(task: Task): string {
  const text = partsText(task.status.message?.parts ?? []).trim();
  const state = task.status.state.replace('TASK_STATE_', '').toLowerCase();
  return text === '' ? `the RAG agent's task ended ${state}` : text;
}

/** Failures that would repeat for every file: stop at once and say what to do. */
function fatal(error: unknown, agentUrl: string): FleetError | undefined {
  if (!FleetError.isInstance(error)) return undefined;
  if (error.code === 'CLIENT_CLOSED_REQUEST') return error;
  // No network code, or a failed connect (nothing was sent): the agent is not there.
  if (
    error.code === 'UPSTREAM_UNREACHABLE' &&
    (networkErrorCode(error) === undefined || isConnectFailure(error))
  ) {
    return new ServiceUnavailableError(
      `The RAG agent is not reachable at ${agentUrl}. Start the fleet with \`pnpm fleet up\` (see \`pnpm fleet status\`).`,
      { cause: error },
    );
  }
  if (error.code === 'UNAUTHENTICATED') {
    return new ServiceUnavailableError(
      `The RAG agent at ${agentUrl} refused the internal token: run with the FLEET_INTERNAL_TOKEN the fleet was started with (or none, to use .fleet/secrets.json).`,
      { cause: error },
    );
  }
  return undefined;
}

async function ingestOne({
  client,
  agentUrl,
  tenant,
  file,
  timeoutMs,
  signal,
}: Omit<IngestDocumentsOptions, 'files' | 'onStart' | 'onResult'> & {
  file: string;
  timeoutMs: number;
}): Promise<IngestOutcome> {
  const size = (await stat(file)).size;
  if (size > MAX_FILE_BYTES) {
    return { file, status: 'failed', error: `larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB` };
  }
  const bytes = await readFile(file);
  let reply;
  try {
    reply = await client.sendMessage(
      {
        message: createMessage({
          parts: [
            dataPart({ documents: { op: 'ingest', tenant } }),
            {
              raw: bytes.toString('base64'),
              filename: path.basename(file),
              mediaType: documentMediaType(file),
            },
          ],
        }),
      },
      { timeoutMs, signal },
    );
  } catch (error) {
    const stop = fatal(error, agentUrl);
    if (stop !== undefined) throw stop;
    return {
      file,
      status: 'failed',
      error: error instanceof Error ? error.message : String(error),
    };
  }
  if (!('status' in reply)) {
    return { file, status: 'failed', error: 'the RAG agent answered with a message, not a task' };
  }
  if (reply.status.state !== 'TASK_STATE_COMPLETED') {
    const code = findData(reply.status.message?.parts ?? [], failureDataSchema)?.error.code;
    return {
      file,
      status: 'failed',
      error: describeFailure(reply),
      ...(code === undefined ? {} : { code }),
    };
  }
  const artifact = reply.artifacts?.find((candidate) => candidate.name === RESULT_ARTIFACT_NAME);
  const document =
    artifact === undefined ? undefined : findData(artifact.parts, ingestResultSchema)?.documents[0];
  if (document === undefined) {
    return { file, status: 'failed', error: 'the RAG agent reported no document' };
  }
  return { file, status: document.duplicate === true ? 'duplicate' : 'ingested', document };
}

/**
 * Sends files to the RAG agent one at a time with the documents command `ingest`
 * (`documentsCommandSchema` in `@fleet/a2a`), each as a `raw` file part. A file the agent cannot
 * read is a `failed` outcome and the rest go on; an unreachable agent or a refused token stops
 * the run with a {@link ServiceUnavailableError} that says what to do.
 *
 * @example
 * const outcomes = await ingestDocuments({ client, agentUrl, tenant: 'dev', files });
 */
export async function ingestDocuments({
  files,
  onStart,
  onResult,
  timeoutMs = 240_000,
  ...options
}: IngestDocumentsOptions): Promise<IngestOutcome[]> {
  const outcomes: IngestOutcome[] = [];
  for (const [index, file] of files.entries()) {
    if (options.signal?.aborted === true) break;
    onStart?.(file, index);
    const outcome = await ingestOne({ ...options, file, timeoutMs }).catch(
      (error: unknown): IngestOutcome => {
        // Fatal ones (see `fatal`) stop the run.
        if (FleetError.isInstance(error)) throw error;
        // Unreadable file (permissions, vanished since the listing).
        return {
          file,
          status: 'failed',
          error: error instanceof Error ? error.message : String(error),
        };
      },
    );
    outcomes.push(outcome);
    onResult?.(outcome, index);
  }
  return outcomes;
}
