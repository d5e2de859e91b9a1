import { z } from 'zod';
import { documentInfoSchema } from './conventions';
import { runFileSourceSchema } from './files';

/**
 * The byte routes of the agent that keeps the fleet's files (the RAG agent): plain HTTP beside
 * `/a2a`, behind the same internal token, so reading a file's or a document's bytes leaves no A2A
 * task (and no base64 copy of the bytes) in the agent's task store. One `GET` answers the bytes as
 * the body and what they are as one header: the JSON of the metadata, base64url-encoded.
 */

/** The header of a run file's bytes that carries its `RunFile` (base64url of the JSON). */
export const RUN_FILE_METADATA_HEADER = 'x-fleet-file';

/** The header of a document's bytes that carries its {@link DocumentContentMetadata}. */
export const DOCUMENT_METADATA_HEADER = 'x-fleet-document';

/** Largest metadata header read back (a `RunFile` or a document's info is far smaller). */
export const MAX_CONTENT_METADATA_HEADER_LENGTH = 8 * 1024;

/**
 * The path of a run file's bytes on the agent that keeps them, for one tenant.
 *
 * @example
 * runFileContentRoute('file-0123…', 'acme'); // '/internal/files/file-0123…/content?tenant=acme'
 */
export function runFileContentRoute(id: string, tenant: string): string {
  return `/internal/files/${encodeURIComponent(id)}/content?tenant=${encodeURIComponent(tenant)}`;
}

/**
 * The path of a document's original bytes on the RAG agent, for one tenant.
 *
 * @example
 * documentContentRoute('5f0c…', 'acme'); // '/internal/documents/5f0c…/content?tenant=acme'
 */
export function documentContentRoute(id: string, tenant: string): string {
  return `/internal/documents/${encodeURIComponent(id)}/content?tenant=${encodeURIComponent(tenant)}`;
}

/** What the {@link DOCUMENT_METADATA_HEADER} says about a document's original bytes. */
export const documentContentMetadataSchema = z.object({
  document: documentInfoSchema,
  /** The document's filename. */
  filename: z.string().min(1),
  /** The media type kept with the bytes, e.g. `application/pdf`. */
  mediaType: z.string().min(1),
});
export type DocumentContentMetadata = z.infer<typeof documentContentMetadataSchema>;

/** A metadata header's value: the JSON of `value`, base64url-encoded (ASCII, one line). */
export function encodeContentMetadata(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/**
 * A metadata header read back and checked against `schema`; undefined when it is absent, too
 * long, not base64url JSON or not what the schema says.
 */
export function decodeContentMetadata<TSchema extends z.ZodType>(
  header: string | null | undefined,
  schema: TSchema,
): z.output<TSchema> | undefined {
  const read = readContentMetadata(header, schema);
  return read.ok ? read.value : undefined;
}

/**
 * The header of a `POST /internal/files` that says what its body is: a
 * {@link RunFilePutMetadata}, base64url of the JSON (the body is the file's raw bytes).
 */
export const RUN_FILE_PUT_HEADER = 'x-fleet-file-put';

/**
 * What a `POST /internal/files` keeps its body as: what the `files` `put` command says about its
 * files, for one file. The store cleans the name and checks the type against the bytes again.
 * Fields it does not know are ignored (a newer client may send more).
 */
export const runFilePutMetadataSchema = z.object({
  /** The file's name as its maker gave it (the store cleans it). */
  name: z.string().min(1).max(1024),
  /** The media type its maker claims (the store checks it against the bytes). */
  mediaType: z.string().min(1).max(256),
  sessionId: z.string().min(1).max(256).optional(),
  nodeId: z.string().min(1).max(256).optional(),
  agent: z.string().min(1).max(256).optional(),
  source: runFileSourceSchema,
  /** ISO-8601 expiry. */
  expiresAt: z.string().min(1).max(64),
});
export type RunFilePutMetadata = z.infer<typeof runFilePutMetadataSchema>;

/**
 * The path that keeps one run file's bytes on the agent that keeps them (`POST`), for one tenant.
 *
 * @example
 * runFilesRoute('acme'); // '/internal/files?tenant=acme'
 */
export function runFilesRoute(tenant: string): string {
  return `/internal/files?tenant=${encodeURIComponent(tenant)}`;
}

/**
 * The path of one run file on the agent that keeps them (`DELETE`), for one tenant.
 *
 * @example
 * runFileRoute('file-0123…', 'acme'); // '/internal/files/file-0123…?tenant=acme'
 */
export function runFileRoute(id: string, tenant: string): string {
  return `/internal/files/${encodeURIComponent(id)}?tenant=${encodeURIComponent(tenant)}`;
}

/** Why a metadata header could not be read ({@link readContentMetadata}). */
export type ContentMetadataResult<T> =
  | { ok: true; value: T }
  | { ok: false; problem: 'missing' | 'too-long' | 'not-base64url' | 'not-json' }
  | { ok: false; problem: 'invalid'; error: z.ZodError };

/**
 * A metadata header read and checked against `schema`, saying what is wrong when it cannot be:
 * absent, longer than {@link MAX_CONTENT_METADATA_HEADER_LENGTH}, not base64url, not JSON, or not
 * what the schema says (with zod's error). {@link decodeContentMetadata} is the same without the
 * reason.
 */
export function readContentMetadata<TSchema extends z.ZodType>(
  header: string | null | undefined,
  schema: TSchema,
): ContentMetadataResult<z.output<TSchema>> {
  if (header === null || header === undefined || header === '') {
    return { ok: false, problem: 'missing' };
  }
  if (header.length > MAX_CONTENT_METADATA_HEADER_LENGTH) return { ok: false, problem: 'too-long' };
  if (!/^[A-Za-z0-9_-]+$/.test(header)) return { ok: false, problem: 'not-base64url' };
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, problem: 'not-json' };
  }
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, problem: 'invalid', error: parsed.error };
}
