import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * Run files: the files a run's steps made (an agent's file parts: charts, CSV, reports) and the
 * files a request brought (attachments), kept per tenant in the fleet's file store (the RAG agent's
 * PostgreSQL, reached through its `files` commands) so every replica of every service can read
 * them. The gateway serves them as `GET /v1/files/{id}` and `/v1/files/{id}/content`.
 */

/** A run file's id: `file-` and 32 lowercase hex digits (128 random bits). */
export const RUN_FILE_ID_PATTERN = /^file-[0-9a-f]{32}$/;

/** A new run file id. */
export function newRunFileId(): string {
  return `file-${randomBytes(16).toString('hex')}`;
}

/** Longest run file name kept (longer names are cut, the extension kept). */
export const MAX_RUN_FILE_NAME_LENGTH = 128;

export const runFileIdSchema = z
  .string()
  .regex(RUN_FILE_ID_PATTERN, 'a file id is "file-" and 32 lowercase hex digits');

/** Where a run file came from: a step's result, or the request that started the run. */
export const runFileSourceSchema = z.enum(['step', 'attachment']);
export type RunFileSource = z.infer<typeof runFileSourceSchema>;

/** A run file as the store, the run's result, the session and the gateway list it. */
export const runFileSchema = z.object({
  id: runFileIdSchema,
  /** The cleaned file name (no directories, no control characters; {@link cleanRunFileName}). */
  name: z.string().min(1).max(MAX_RUN_FILE_NAME_LENGTH),
  /** The media type as kept: from the allow-list, checked against the bytes ({@link checkRunFile}). */
  mediaType: z.string().min(1),
  /** Bytes. */
  size: z.number().int().min(0),
  /** Lowercase hex SHA-256 of the bytes. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  source: runFileSourceSchema,
  /** The session (run) it belongs to. */
  sessionId: z.string().optional(),
  /** The plan node (step) that made it; absent for an attachment. */
  nodeId: z.string().optional(),
  /** The agent of that step. */
  agent: z.string().optional(),
  /** ISO-8601. */
  createdAt: z.string(),
  /** ISO-8601: after this the file is gone (the store deletes it; reads say not found). */
  expiresAt: z.string(),
});
export type RunFile = z.infer<typeof runFileSchema>;

/**
 * Commands to the fleet's file store (the RAG agent), outside plans: the data part `{ files: … }`.
 *
 * - `put` comes with one or more file parts (`raw` base64 + `filename` + `mediaType`), each stored
 *   as one file with the given session, step, agent, source and expiry; all or none. Names are
 *   cleaned and types checked again by the store ({@link checkRunFile}); a refused file fails the
 *   task with `VALIDATION_ERROR` (or `PAYLOAD_TOO_LARGE`) naming it, and nothing is stored.
 *   Result data: `{ files: RunFile[] }` in the order of the parts.
 * - `get`: `{ file: RunFile }` beside a file part with the bytes.
 * - `info`: `{ file: RunFile }` only.
 * - `list`: the session's files, oldest first: `{ files: RunFile[] }`.
 * - `delete`: `{ deleted: boolean }`.
 *
 * An unknown id, another tenant's, or an expired file fails `get`/`info` with `NOT_FOUND`.
 */
export const filesCommandSchema = z.object({
  files: z.discriminatedUnion('op', [
    z.object({
      op: z.literal('put'),
      tenant: z.string().min(1),
      sessionId: z.string().min(1).optional(),
      nodeId: z.string().min(1).optional(),
      agent: z.string().min(1).optional(),
      source: runFileSourceSchema.default('step'),
      /** ISO-8601 expiry of every file in this put. */
      expiresAt: z.string().min(1),
    }),
    z.object({ op: z.literal('get'), tenant: z.string().min(1), id: runFileIdSchema }),
    z.object({ op: z.literal('info'), tenant: z.string().min(1), id: runFileIdSchema }),
    z.object({ op: z.literal('list'), tenant: z.string().min(1), sessionId: z.string().min(1) }),
    z.object({ op: z.literal('delete'), tenant: z.string().min(1), id: runFileIdSchema }),
  ]),
});
export type FilesCommand = z.infer<typeof filesCommandSchema>['files'];

/**
 * The media types a run file may have. Images and PDF are checked against their leading bytes;
 * `active` types (HTML, SVG: they can carry script) are kept but only ever served as downloads.
 */
export const RUN_FILE_TYPES: Readonly<
  Record<string, { extensions: readonly string[]; magic?: readonly number[][]; active?: true }>
> = {
  'image/png': { extensions: ['.png'], magic: [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]] },
  'image/jpeg': { extensions: ['.jpg', '.jpeg'], magic: [[0xff, 0xd8, 0xff]] },
  'image/gif': {
    extensions: ['.gif'],
    magic: [
      [0x47, 0x49, 0x46, 0x38, 0x37, 0x61],
      [0x47, 0x49, 0x46, 0x38, 0x39, 0x61],
    ],
  },
  'image/webp': { extensions: ['.webp'], magic: [[0x52, 0x49, 0x46, 0x46]] },
  'application/pdf': { extensions: ['.pdf'], magic: [[0x25, 0x50, 0x44, 0x46, 0x2d]] },
  'text/csv': { extensions: ['.csv'] },
  'text/tab-separated-values': { extensions: ['.tsv'] },
  'text/plain': { extensions: ['.txt', '.log'] },
  'text/markdown': { extensions: ['.md', '.markdown'] },
  'application/json': { extensions: ['.json'] },
  'text/html': { extensions: ['.html', '.htm'], active: true },
  'image/svg+xml': { extensions: ['.svg'], active: true },
};

/** Media types a browser may show inline from the gateway (never HTML or SVG). */
export const INLINE_RUN_FILE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);

/** True for a media type shown as an image in answers and in the console. */
export function isInlineImage(mediaType: string): boolean {
  return INLINE_RUN_FILE_TYPES.has(mediaType);
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot).toLowerCase();
}

/**
 * A safe name for a run file: its base name only (whatever follows the last `/` or `\`), NFC,
 * without control characters or the characters Markdown links and headers break on (`[]()<>"`),
 * runs of dots made one, no leading dots or spaces, at most {@link MAX_RUN_FILE_NAME_LENGTH}
 * characters (a short extension kept). An empty result becomes `fallback`.
 *
 * @example
 * cleanRunFileName('../../etc/passwd', 'file-1'); // 'passwd'
 */
export function cleanRunFileName(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[/\\]/).at(-1) ?? '';
  const cleaned = base
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '')
    .replace(/[[\]()<>"`]/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^[\s.]+/, '')
    .trim();
  const chosen = cleaned === '' ? fallback : cleaned;
  if (chosen.length <= MAX_RUN_FILE_NAME_LENGTH) return chosen;
  const extension = extensionOf(chosen);
  const kept = extension.length <= 16 ? extension : '';
  return `${chosen.slice(0, MAX_RUN_FILE_NAME_LENGTH - kept.length)}${kept}`;
}

/** What {@link checkRunFile} decided about one file. */
export type RunFileCheck =
  { ok: true; mediaType: string; active: boolean } | { ok: false; reason: string };

function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.length <= bytes.length && magic.every((byte, index) => bytes[index] === byte);
}

/**
 * Decides the media type a file is kept with: the claimed type (parameters dropped, lowercased)
 * when it is on the allow-list ({@link RUN_FILE_TYPES}), else the type its name's extension names
 * (an agent that says `application/octet-stream` for `chart.png`), else refused. An image or PDF
 * whose leading bytes are not what the type says is refused ("chart.png is not a PNG image").
 */
export function checkRunFile(input: {
  name: string;
  mediaType: string | undefined;
  bytes: Uint8Array;
}): RunFileCheck {
  const claimed = (input.mediaType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const extension = extensionOf(input.name);
  const byExtension = Object.entries(RUN_FILE_TYPES).find(([, type]) =>
    type.extensions.includes(extension),
  )?.[0];
  const mediaType =
    RUN_FILE_TYPES[claimed] !== undefined
      ? claimed
      : claimed === '' || claimed === 'application/octet-stream'
        ? byExtension
        : undefined;
  if (mediaType === undefined) {
    return {
      ok: false,
      reason: `${input.name} (${claimed === '' ? 'no type' : claimed}) is not a kind of file the fleet keeps: images (PNG, JPEG, GIF, WebP), PDF, CSV, TSV, text, Markdown, JSON, HTML and SVG`,
    };
  }
  const type = RUN_FILE_TYPES[mediaType];
  if (type?.magic !== undefined && !type.magic.some((magic) => startsWith(input.bytes, magic))) {
    return {
      ok: false,
      reason: `${input.name} says it is ${mediaType} but its content is not`,
    };
  }
  return { ok: true, mediaType, active: type?.active === true };
}

/** The gateway path of a run file's bytes (relative: the answer's links need the API key). */
export function runFileContentPath(id: string): string {
  return `/v1/files/${id}/content`;
}

/** One file to keep: its bytes and what its maker called it. */
export interface RunFileUpload {
  name: string;
  mediaType: string;
  bytes: Uint8Array;
}

/**
 * The fleet's file store, as its clients see it (`createRunFilesClient` in `@fleet/a2a/client`:
 * the RAG agent's `files` commands). Every call is for one tenant; another tenant's id is not
 * found.
 */
export interface RunFileStore {
  /**
   * Keeps files, all or none, in the order given.
   *
   * @throws ValidationError (400) naming a refused file; PayloadTooLargeError (413) for one over
   *   the store's limit; ServiceUnavailableError (503) when the store cannot be reached.
   */
  put(input: {
    tenant: string;
    files: readonly RunFileUpload[];
    sessionId?: string | undefined;
    nodeId?: string | undefined;
    agent?: string | undefined;
    source: RunFileSource;
    expiresAt: string;
    signal?: AbortSignal | undefined;
  }): Promise<RunFile[]>;
  /** The file and its bytes. @throws NotFoundError (404) for an unknown, foreign or expired id. */
  get(input: {
    tenant: string;
    id: string;
    signal?: AbortSignal | undefined;
  }): Promise<{ file: RunFile; bytes: Buffer }>;
  /** The file without its bytes. @throws NotFoundError (404) as {@link get}. */
  info(input: { tenant: string; id: string; signal?: AbortSignal | undefined }): Promise<RunFile>;
  /** A session's files, oldest first. */
  list(input: {
    tenant: string;
    sessionId: string;
    signal?: AbortSignal | undefined;
  }): Promise<RunFile[]>;
  /** Deletes one file; false when the tenant has none by that id. */
  remove(input: { tenant: string; id: string; signal?: AbortSignal | undefined }): Promise<boolean>;
}
