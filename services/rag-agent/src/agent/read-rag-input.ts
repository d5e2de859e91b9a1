import { z } from 'zod';
import {
  documentsCommandSchema,
  filesCommandSchema,
  partsText,
  type DocumentsCommand,
  type FilesCommand,
  type NodeInput,
  type Part,
} from '@fleet/a2a';
import { PayloadTooLargeError, ValidationError, validationErrorFromZod } from '@fleet/errors';
import { readNodeInput } from '@fleet/agent-kit';
import type { DocumentUpload } from '../documents';
import { formatBytes } from '../documents';

/** What a message asks the RAG agent to do. */
export type RagInput =
  | { kind: 'documents'; command: DocumentsCommand; files: FilePart[] }
  | { kind: 'files'; command: FilesCommand; files: RunFilePart[] }
  | { kind: 'question'; question: string; node: NodeInput['fleet'] }
  | { kind: 'invalid'; reason: string };

/** A file part of a message, not yet decoded. */
export interface FilePart {
  filename: string;
  mediaType?: string;
  /** Base64, as the part carries it. */
  raw: string;
}

/** A file part of a `files` put, not yet decoded: its name and type are the store's to check. */
export interface RunFilePart {
  /** The part's filename; the store names a file without one `file-<n>`. */
  filename: string | undefined;
  mediaType: string | undefined;
  /** Base64, as the part carries it. */
  raw: string;
}

const hasDocuments = z.looseObject({ documents: z.unknown() });
const hasFiles = z.looseObject({ files: z.unknown() });

function runFileParts(parts: readonly Part[]): RunFilePart[] | string {
  const files: RunFilePart[] = [];
  for (const [index, part] of parts.entries()) {
    if (part.url !== undefined) {
      return `Part ${index + 1} is a URL (${part.url}); the RAG agent does not fetch files: send the bytes as a raw part.`;
    }
    if (part.raw === undefined) continue;
    files.push({ filename: part.filename, mediaType: part.mediaType, raw: part.raw });
  }
  return files;
}

function readFilesCommand(data: unknown, parts: readonly Part[]): RagInput {
  const parsed = filesCommandSchema.safeParse(data);
  if (!parsed.success) {
    const error = validationErrorFromZod(parsed.error, { subject: 'The files data part' });
    return { kind: 'invalid', reason: error.message };
  }
  const command = parsed.data.files;
  const files = runFileParts(parts);
  if (typeof files === 'string') return { kind: 'invalid', reason: files };
  if (command.op === 'put' && files.length === 0) {
    return {
      kind: 'invalid',
      reason:
        'A files put needs at least one file part (raw base64 bytes with a filename and mediaType).',
    };
  }
  return { kind: 'files', command, files };
}

/** File extensions for parts that carry a media type but no filename. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/csv': 'csv',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/html': 'html',
};

function fileParts(parts: readonly Part[]): FilePart[] | string {
  const files: FilePart[] = [];
  for (const [index, part] of parts.entries()) {
    if (part.url !== undefined) {
      return `Part ${index + 1} is a URL (${part.url}); the RAG agent does not fetch files: send the bytes as a raw part.`;
    }
    if (part.raw === undefined) continue;
    const mediaType = part.mediaType?.split(';')[0]?.trim().toLowerCase() || undefined;
    const extension = mediaType === undefined ? undefined : EXTENSIONS[mediaType];
    const filename =
      part.filename?.trim() || (extension === undefined ? undefined : `document.${extension}`);
    if (filename === undefined) {
      return `File part ${index + 1} has neither a filename nor a known media type; the RAG agent needs one of them to know how to read it.`;
    }
    files.push({ filename, raw: part.raw, ...(mediaType === undefined ? {} : { mediaType }) });
  }
  return files;
}

/**
 * Reads a message to the RAG agent: a documents command (data part `{ documents: { op, tenant,
 * id? } }`, with file parts for `ingest`), a run files command (data part `{ files: { op, tenant,
 * … } }`, `filesCommandSchema`, with file parts for `put`), or a question (text part) with the fleet node input
 * (data part `{ fleet: { tenant, … } }`). Anything else is `invalid`, with a reason that says what
 * the agent needs.
 *
 * @example
 * const input = readRagInput(context.message.parts);
 * if (input.kind === 'invalid') yield { type: 'status', state: 'TASK_STATE_REJECTED', message: input.reason };
 */
export function readRagInput(parts: readonly Part[]): RagInput {
  const commandData = parts.find((part) => hasDocuments.safeParse(part.data).success)?.data;
  if (commandData !== undefined) {
    const parsed = documentsCommandSchema.safeParse(commandData);
    if (!parsed.success) {
      const error = validationErrorFromZod(parsed.error, { subject: 'The documents data part' });
      return { kind: 'invalid', reason: error.message };
    }
    const command = parsed.data.documents;
    const files = fileParts(parts);
    if (typeof files === 'string') return { kind: 'invalid', reason: files };
    if (command.op === 'ingest' && files.length === 0) {
      return {
        kind: 'invalid',
        reason:
          'An ingest command needs at least one file part (raw base64 bytes with a filename and mediaType).',
      };
    }
    return { kind: 'documents', command, files };
  }
  const filesData = parts.find((part) => hasFiles.safeParse(part.data).success)?.data;
  if (filesData !== undefined) return readFilesCommand(filesData, parts);
  const read = readNodeInput(parts);
  if (read.kind === 'absent') {
    return {
      kind: 'invalid',
      reason:
        'The RAG agent needs either a question (text part) with the fleet node input data part { fleet: { tenant, sessionId, nodeId, … } }, a documents command data part { documents: { op: "ingest" | "list" | "get" | "delete", tenant, id? } }, or a files command data part { files: { op: "put" | "get" | "info" | "list" | "delete", tenant, … } }.',
    };
  }
  if (read.kind === 'invalid') return read;
  const { node } = read;
  if (node.tenant.trim() === '') {
    return { kind: 'invalid', reason: 'The fleet data part names no tenant.' };
  }
  // A plan node whose skill is `ingest` carries files: the tenant comes from the node input.
  if (node.skill === 'ingest') {
    const files = fileParts(parts);
    if (typeof files === 'string') return { kind: 'invalid', reason: files };
    if (files.length === 0) {
      return {
        kind: 'invalid',
        reason: 'The ingest skill needs file parts (raw base64 bytes with a filename).',
      };
    }
    return { kind: 'documents', command: { op: 'ingest', tenant: node.tenant }, files };
  }
  const question = partsText(parts).trim();
  if (question === '') return { kind: 'invalid', reason: 'The question (text part) is empty.' };
  if (question.length > MAX_QUESTION_CHARS) {
    return {
      kind: 'invalid',
      reason: `The question is ${question.length.toLocaleString('en-US')} characters; the RAG agent takes questions of up to ${MAX_QUESTION_CHARS.toLocaleString('en-US')} characters. Ask about the documents in fewer words (upload long texts as documents instead).`,
    };
  }
  return { kind: 'question', question, node };
}

/**
 * The longest question the RAG agent searches for. A question is embedded, turned into a
 * full-text query and scored against every candidate sentence: a 150 KB one took 20 s and more.
 * Ten times the longest real question is plenty.
 */
export const MAX_QUESTION_CHARS = 8000;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64_URL = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Decodes a file part's base64 bytes, refusing a file over `maxBytes` before decoding it.
 *
 * @throws PayloadTooLargeError over the limit; ValidationError when the part is not base64.
 */
export function decodeFilePart(
  file: FilePart,
  maxBytes: number,
  /** The variable that sets `maxBytes`, named in the error. */
  setting = 'RAG_MAX_UPLOAD_BYTES',
): DocumentUpload {
  const raw = file.raw.replace(/\s+/g, '');
  const size =
    Math.floor((raw.length * 3) / 4) - (raw.endsWith('==') ? 2 : raw.endsWith('=') ? 1 : 0);
  if (size > maxBytes) {
    throw new PayloadTooLargeError(
      `${file.filename} is ${formatBytes(size)}; the largest file the RAG agent takes is ${formatBytes(maxBytes)} (${setting}).`,
      { details: { filename: file.filename, bytes: size, limit: maxBytes } },
    );
  }
  const url = !BASE64.test(raw) && BASE64_URL.test(raw);
  if (!url && !BASE64.test(raw)) {
    throw new ValidationError(`${file.filename}: the file part's raw content is not base64.`, {
      details: { filename: file.filename },
    });
  }
  const bytes = Buffer.from(raw, url ? 'base64url' : 'base64');
  return {
    filename: file.filename,
    bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    ...(file.mediaType === undefined ? {} : { mediaType: file.mediaType }),
  };
}
