import { z } from 'zod';
import {
  checkRunFile,
  cleanRunFileName,
  RUN_FILE_ID_PATTERN,
  RUN_FILE_TYPES,
  type Part,
  type RunFileStore,
} from '@fleet/a2a';
import {
  BadRequestError,
  FleetError,
  NotFoundError,
  PayloadTooLargeError,
  ServiceUnavailableError,
} from '@fleet/errors';
import type { DocumentsClient } from '../documents/documents-client';
import { describeByteSize } from '../limits';

/**
 * Attachments: the files a request to an agent route brings in its last user message (chat's
 * `image_url` and `file` parts, the Responses API's `input_image` and `input_file` parts). Each
 * becomes an A2A file part (`raw` base64, `filename`, `mediaType`) on the message the gateway
 * sends to the orchestrator or the reasoning agent. The gateway never fetches a URL.
 */

/** Attachments one request may bring by default (`GATEWAY_MAX_ATTACHMENTS`). */
export const DEFAULT_MAX_ATTACHMENTS = 8;
/** Decoded bytes one attachment may have by default (`GATEWAY_MAX_ATTACHMENT_BYTES`). */
export const DEFAULT_MAX_ATTACHMENT_BYTES = 4 * 1024 * 1024;

/** One attachment as the request names it, before its bytes are read. */
export type AttachmentRef =
  | {
      kind: 'data';
      /** Where it is in the request (`messages[0].content[1].image_url.url`): the error's `param`. */
      param: string;
      /** Base64, not yet decoded. */
      base64: string;
      /** The data URL's media type; undefined for bare base64. */
      mediaType: string | undefined;
      filename: string | undefined;
    }
  | { kind: 'id'; param: string; fileId: string; filename: string | undefined };

/** The attachment limits (`GATEWAY_MAX_ATTACHMENTS`, `GATEWAY_MAX_ATTACHMENT_BYTES`). */
export interface AttachmentLimits {
  maxAttachments: number;
  maxAttachmentBytes: number;
}

const NO_URL_FETCH =
  'the gateway does not fetch URLs: send the file as a data URL (data:image/png;base64,…), as file_data, or upload it (POST /v1/documents) and send its file_id';

const DATA_URL = /^data:([^,;]*)((?:;[^,;]*)*),/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const chatImagePartSchema = z.object({
  type: z.literal('image_url'),
  image_url: z.looseObject(
    { url: z.string({ error: 'image_url.url must be a string' }).min(1) },
    { error: 'image_url must be an object with a url' },
  ),
});

const fileFieldsSchema = z.looseObject({
  file_data: z.string({ error: 'file_data must be a string' }).min(1).optional(),
  file_id: z.string({ error: 'file_id must be a string' }).min(1).optional(),
  filename: z.string({ error: 'filename must be a string' }).optional(),
  file_url: z.string({ error: 'file_url must be a string' }).optional(),
});

const chatFilePartSchema = z.object({
  type: z.literal('file'),
  file: fileFieldsSchema,
});

const inputImagePartSchema = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.string({ error: 'image_url must be a string' }).min(1).nullish(),
  file_id: z.string({ error: 'file_id must be a string' }).min(1).nullish(),
});

const inputFilePartSchema = fileFieldsSchema.extend({ type: z.literal('input_file') });

/** A part's type, when it is an object with a string `type`. */
function partType(part: unknown): string | undefined {
  return typeof part === 'object' &&
    part !== null &&
    'type' in part &&
    typeof part.type === 'string'
    ? part.type
    : undefined;
}

function parsePart<T>(schema: z.ZodType<T>, part: unknown, param: string): T {
  const parsed = schema.safeParse(part);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = [param, ...(issue?.path ?? []).map(String)].join('.');
  throw new BadRequestError(`${where}: ${issue?.message ?? 'invalid content part'}`, {
    param: where,
  });
}

/** A data URL's media type and base64 payload; a 400 naming `param` for anything else. */
function fromDataUrl(
  url: string,
  param: string,
): { mediaType: string | undefined; base64: string } {
  if (/^https?:/i.test(url)) {
    throw new BadRequestError(`${param} is a URL; ${NO_URL_FETCH}.`, { param });
  }
  const match = DATA_URL.exec(url);
  if (match === null) {
    throw new BadRequestError(
      `${param} is not a data URL (data:<media type>;base64,<data>); ${NO_URL_FETCH}.`,
      { param },
    );
  }
  const parameters = (match[2] ?? '').toLowerCase().split(';');
  if (!parameters.includes('base64')) {
    throw new BadRequestError(`${param} is a data URL without ;base64: send base64 data.`, {
      param,
    });
  }
  const mediaType = match[1]?.trim() === '' ? undefined : match[1]?.trim().toLowerCase();
  return { mediaType, base64: url.slice(match[0].length) };
}

/** `file_data`: a data URL, or bare base64. */
function fromFileData(
  data: string,
  param: string,
): { mediaType: string | undefined; base64: string } {
  return data.startsWith('data:') || /^https?:/i.test(data)
    ? fromDataUrl(data, param)
    : { mediaType: undefined, base64: data };
}

function fileRef(
  fields: z.infer<typeof fileFieldsSchema>,
  param: string,
  { responses }: { responses: boolean },
): AttachmentRef {
  if (fields.file_url !== undefined) {
    throw new BadRequestError(`${param}.file_url: ${NO_URL_FETCH}.`, {
      param: `${param}.file_url`,
    });
  }
  const filename = fields.filename;
  if (fields.file_id !== undefined && fields.file_data === undefined) {
    return { kind: 'id', param: `${param}.file_id`, fileId: fields.file_id, filename };
  }
  if (fields.file_data !== undefined && fields.file_id === undefined) {
    const dataParam = `${param}.file_data`;
    return {
      kind: 'data',
      param: dataParam,
      filename,
      ...fromFileData(fields.file_data, dataParam),
    };
  }
  throw new BadRequestError(
    `${param} needs exactly one of file_data (with filename) or file_id${responses ? '' : ' in file'}.`,
    { param },
  );
}

/**
 * The attachments among one message's content parts (`content` a string: none). `prefix` names
 * the content in errors (`messages[2].content`, `input[0].content`). Text parts and parts of
 * other types are left alone.
 *
 * @throws BadRequestError (400) naming the part: an http(s) URL (the gateway fetches none), a
 *   malformed data URL, a part without its data or id.
 */
export function collectAttachments(content: unknown, prefix: string): AttachmentRef[] {
  if (!Array.isArray(content)) return [];
  const refs: AttachmentRef[] = [];
  for (const [index, part] of content.entries()) {
    const param = `${prefix}[${index}]`;
    switch (partType(part)) {
      case 'image_url': {
        const { image_url: image } = parsePart(chatImagePartSchema, part, param);
        refs.push({
          kind: 'data',
          param: `${param}.image_url.url`,
          filename: undefined,
          ...fromDataUrl(image.url, `${param}.image_url.url`),
        });
        break;
      }
      case 'file': {
        const { file } = parsePart(chatFilePartSchema, part, param);
        refs.push(fileRef(file, `${param}.file`, { responses: false }));
        break;
      }
      case 'input_image': {
        const image = parsePart(inputImagePartSchema, part, param);
        if (image.image_url != null && image.file_id == null) {
          const where = `${param}.image_url`;
          refs.push({
            kind: 'data',
            param: where,
            filename: undefined,
            ...fromDataUrl(image.image_url, where),
          });
        } else if (image.file_id != null && image.image_url == null) {
          refs.push({
            kind: 'id',
            param: `${param}.file_id`,
            fileId: image.file_id,
            filename: undefined,
          });
        } else {
          throw new BadRequestError(`${param} needs exactly one of image_url or file_id.`, {
            param,
          });
        }
        break;
      }
      case 'input_file': {
        const fields = parsePart(inputFilePartSchema, part, param);
        refs.push(fileRef(fields, param, { responses: true }));
        break;
      }
      case undefined:
      default:
        break;
    }
  }
  return refs;
}

/** What {@link resolveAttachments} reads ids with. */
export interface AttachmentSources {
  tenant: string;
  /** The fleet's file store (`file-…` ids); undefined: such ids are a 503. */
  files: RunFileStore | undefined;
  /** The tenant's documents (other ids); undefined: such ids are a 503. */
  documents: DocumentsClient | undefined;
  limits: AttachmentLimits;
  /** GATEWAY_BODY_LIMIT: the attachments together (base64) stay within it. */
  bodyLimit: number;
  signal?: AbortSignal | undefined;
}

function tooLarge(param: string, bytes: number, max: number): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `${param} is ${describeByteSize(bytes)}; an attachment may be at most ${describeByteSize(max)} (GATEWAY_MAX_ATTACHMENT_BYTES).`,
    { param },
  );
}

function decodeBase64(ref: Extract<AttachmentRef, { kind: 'data' }>, max: number): Buffer {
  const base64 = ref.base64.replace(/\s+/g, '');
  // The decoded size is known from the length: an oversized attachment is refused undecoded.
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  const decodedBytes = Math.floor((base64.length * 3) / 4) - padding;
  if (decodedBytes > max) throw tooLarge(ref.param, decodedBytes, max);
  if (base64.length % 4 !== 0 || !BASE64.test(base64)) {
    throw new BadRequestError(`${ref.param} is not valid base64.`, { param: ref.param });
  }
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length === 0) {
    throw new BadRequestError(`${ref.param} is empty.`, { param: ref.param });
  }
  return bytes;
}

function asNotFound(error: unknown, ref: { param: string; fileId: string }): unknown {
  if (FleetError.isInstance(error) && error.code === 'NOT_FOUND') {
    return new NotFoundError(`${ref.param}: there is no file ${ref.fileId}.`, {
      param: ref.param,
      cause: error,
    });
  }
  return error;
}

/** Ids the RAG agent hands out for documents (as the documents API checks them). */
const DOCUMENT_ID_PATTERN = /^[\w.-]{1,128}$/;

async function readById(
  ref: Extract<AttachmentRef, { kind: 'id' }>,
  sources: AttachmentSources,
): Promise<{ bytes: Buffer; mediaType: string | undefined; name: string | undefined }> {
  const { tenant, signal } = sources;
  if (RUN_FILE_ID_PATTERN.test(ref.fileId)) {
    if (sources.files === undefined) {
      throw new ServiceUnavailableError(
        'Run files need FLEET_INTERNAL_TOKEN and the RAG agent (RAG_AGENT_URL), which keeps them.',
      );
    }
    const { file, bytes } = await sources.files
      .get({ tenant, id: ref.fileId, signal })
      .catch((error: unknown) => {
        throw asNotFound(error, ref);
      });
    return { bytes, mediaType: file.mediaType, name: file.name };
  }
  if (!DOCUMENT_ID_PATTERN.test(ref.fileId)) {
    throw new NotFoundError(`${ref.param}: there is no file ${ref.fileId}.`, { param: ref.param });
  }
  if (sources.documents === undefined) {
    throw new ServiceUnavailableError(
      'Documents need FLEET_INTERNAL_TOKEN, the token fleet services share, to call the RAG agent.',
    );
  }
  const content = await sources.documents
    .content({ tenant, id: ref.fileId, ...(signal === undefined ? {} : { signal }) })
    .catch((error: unknown) => {
      throw asNotFound(error, ref);
    });
  return { bytes: content.bytes, mediaType: content.mediaType, name: content.filename };
}

function defaultName(mediaType: string | undefined, index: number): string {
  const extension = mediaType === undefined ? '' : (RUN_FILE_TYPES[mediaType]?.extensions[0] ?? '');
  return `attachment-${index + 1}${extension}`;
}

/**
 * Reads each attachment's bytes (decoding data, reading ids from the file store or the tenant's
 * documents), cleans its name, checks its type against the bytes, and returns the A2A file parts
 * in the request's order.
 *
 * @throws BadRequestError (400) over `maxAttachments`, for bad base64 or a refused type (naming
 *   the part); NotFoundError (404) for an unknown or another tenant's id; PayloadTooLargeError
 *   (413) for one over `maxAttachmentBytes`, or all together over GATEWAY_BODY_LIMIT.
 */
export async function resolveAttachments(
  refs: readonly AttachmentRef[],
  sources: AttachmentSources,
): Promise<Part[]> {
  const { maxAttachments, maxAttachmentBytes } = sources.limits;
  if (refs.length > maxAttachments) {
    throw new BadRequestError(
      `The request brings ${refs.length} attachments; at most ${maxAttachments} are accepted (GATEWAY_MAX_ATTACHMENTS).`,
      { param: refs[maxAttachments]?.param ?? 'messages' },
    );
  }
  const parts: Part[] = [];
  let total = 0;
  for (const [index, ref] of refs.entries()) {
    const read =
      ref.kind === 'data'
        ? {
            bytes: decodeBase64(ref, maxAttachmentBytes),
            mediaType: ref.mediaType,
            name: ref.filename,
          }
        : await readById(ref, sources);
    if (read.bytes.length > maxAttachmentBytes) {
      throw tooLarge(ref.param, read.bytes.length, maxAttachmentBytes);
    }
    const name = cleanRunFileName(
      ref.filename ?? read.name,
      defaultName(read.mediaType?.split(';')[0]?.trim().toLowerCase(), index),
    );
    const check = checkRunFile({ name, mediaType: read.mediaType, bytes: read.bytes });
    if (!check.ok) {
      throw new BadRequestError(`${ref.param}: ${check.reason}.`, { param: ref.param });
    }
    const raw = read.bytes.toString('base64');
    total += raw.length;
    if (total > sources.bodyLimit) {
      throw new PayloadTooLargeError(
        `The attachments come to more than ${describeByteSize(sources.bodyLimit)} encoded; a request may carry at most that (GATEWAY_BODY_LIMIT). Send fewer or smaller files.`,
        { param: ref.param },
      );
    }
    parts.push({ raw, filename: name, mediaType: check.mediaType });
  }
  return parts;
}
