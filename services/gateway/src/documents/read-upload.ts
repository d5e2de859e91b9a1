import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import {
  AbortError,
  BadRequestError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '@fleet/errors';
import { discardBody, encodedBodyError } from '@fleet/http';
import { describeByteSize } from '../limits';

/** The multipart field that carries the document (docs/architecture.md §3). */
export const UPLOAD_FIELD = 'file';

/** One uploaded file, read into memory. */
export interface Upload {
  /** The client's file name, without any directory part. */
  filename: string;
  /** The part's `Content-Type` (`application/octet-stream` when the client sent none). */
  mediaType: string;
  bytes: Buffer;
}

/** Options for {@link readUpload}. */
export interface ReadUploadOptions {
  /** Largest accepted file in bytes (`GATEWAY_UPLOAD_LIMIT`); larger files fail with a 413. */
  limit: number;
  /** The variable that sets `limit`, named in the 413 message. @default 'GATEWAY_UPLOAD_LIMIT' */
  limitVariable?: string;
}

/** Multipart framing, headers and ignored form fields on top of the file itself. */
const MULTIPART_OVERHEAD = 1024 * 1024;
/** Form fields other than `file` are ignored; this bounds how many parts a body may have. */
const MAX_PARTS = 100;
const MAX_FILENAME_LENGTH = 255;

/** A body busboy cannot read (no boundary, cut off before the closing boundary, …): 400. */
function malformed(error: unknown): BadRequestError {
  const reason = error instanceof Error ? error.message : String(error);
  return new BadRequestError(
    `The multipart body cannot be read: ${reason.replace(/\.$/, '')}. Send a complete multipart/form-data body with a \`${UPLOAD_FIELD}\` file.`,
    { cause: error },
  );
}

function isMultipart(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'multipart/form-data';
}

/** The name as a person would read it: no control characters, no directories, bounded length. */
function cleanFilename(name: string | undefined): string {
  const base =
    (name ?? '')
      // eslint-disable-next-line no-control-regex -- stripping control characters is the point
      .replace(/[\u0000-\u001f\u007f]/g, '')
      .split(/[\\/]/)
      .pop() ?? '';
  return base.trim().slice(0, MAX_FILENAME_LENGTH);
}

/**
 * Reads a `multipart/form-data` upload with busboy and returns its `file` field: one file, at
 * most `limit` bytes, held in memory. Other form fields (read up to 64 KiB each, at most 100
 * parts) and file parts under other names are ignored.
 *
 * Never leaves a stream without an error listener: a body cut off before its closing boundary, a
 * malformed one or a client that goes away settles the promise (400, 413 or AbortError), releases
 * what was read and throws the rest of the body away (bounded).
 *
 * @throws UnsupportedMediaTypeError (415) when the body is not multipart or is compressed;
 *   PayloadTooLargeError (413) over the limit, naming it and its variable;
 *   ValidationError (400) without a `file` field, with more than one, or with an empty one;
 *   BadRequestError (400) for a malformed body; AbortError when the client goes away.
 *
 * @example
 * const upload = await readUpload(req, { limit: config.uploadLimit });
 */
export function readUpload(
  req: IncomingMessage,
  { limit, limitVariable = 'GATEWAY_UPLOAD_LIMIT' }: ReadUploadOptions,
): Promise<Upload> {
  const tooLarge = (): PayloadTooLargeError =>
    new PayloadTooLargeError(
      `The file is larger than the upload limit of ${describeByteSize(limit)} (${limitVariable}).`,
      { details: { limit } },
    );
  const encoded = encodedBodyError(req);
  if (encoded !== undefined) return Promise.reject(encoded);
  if (!isMultipart(req.headers['content-type'])) {
    discardBody(req);
    return Promise.reject(
      new UnsupportedMediaTypeError(
        `Upload a document as multipart/form-data with a \`${UPLOAD_FIELD}\` field, not ${req.headers['content-type'] ?? 'a body without Content-Type'}.`,
      ),
    );
  }
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit + MULTIPART_OVERHEAD) {
    discardBody(req);
    return Promise.reject(tooLarge());
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      // Browsers and undici's FormData send UTF-8 file names.
      defParamCharset: 'utf8',
      limits: { fileSize: limit, parts: MAX_PARTS, fieldSize: 64 * 1024 },
    });
  } catch (error) {
    // No boundary, or an unparsable Content-Type.
    discardBody(req);
    return Promise.reject(malformed(error));
  }
  return parseUpload({ req, parser, tooLarge });
}

/** What the parser has seen of an upload so far. */
interface UploadProgress {
  settled: boolean;
  upload: Upload | undefined;
  pendingFile: boolean;
  parsed: boolean;
  otherFiles: string[];
  textField: boolean;
  /** The `file` part's bytes while it is read; emptied when the upload fails. */
  chunks: Buffer[];
}

/** Settles an upload: with the failure, or (undefined) once the body is parsed and no file is pending. */
type SettleUpload = (error: Error | undefined) => void;

/** Pipes the body into busboy and settles with the `file` field, or the first failure. */
function parseUpload({
  req,
  parser,
  tooLarge,
}: {
  req: IncomingMessage;
  parser: busboy.Busboy;
  tooLarge: () => PayloadTooLargeError;
}): Promise<Upload> {
  return new Promise<Upload>((resolve, reject) => {
    const progress: UploadProgress = {
      settled: false,
      upload: undefined,
      pendingFile: false,
      parsed: false,
      otherFiles: [],
      textField: false,
      chunks: [],
    };

    const settle: SettleUpload = (error) => {
      if (progress.settled) return;
      if (error === undefined && (progress.pendingFile || !progress.parsed)) return;
      progress.settled = true;
      req.off('close', onClose);
      if (error !== undefined) {
        // Release everything: the bytes read so far, the parser (destroying it ends any open file
        // stream, whose error listener is below), and the rest of the body, thrown away (bounded,
        // like readBody) so the 413 or 400 reaches a client that is still sending.
        progress.chunks = [];
        req.unpipe(parser);
        parser.removeAllListeners();
        parser.on('error', () => undefined);
        // Not from inside busboy's own callbacks ('limit' is emitted mid-write, and busboy goes
        // on using its file stream after it).
        setImmediate(() => parser.destroy());
        discardBody(req);
        reject(error);
        return;
      }
      const upload = progress.upload;
      if (upload === undefined) reject(missingFile(progress));
      else resolve(upload);
    };
    const onClose = (): void => {
      if (!req.complete) settle(new AbortError('The client closed the connection mid-upload.'));
    };

    parser.on('file', (name, stream, info) =>
      readFilePart({ name, stream, info, progress, settle, tooLarge }),
    );
    // Other fields are ignored; busboy still hands each over (at most fieldSize bytes).
    parser.on('field', (name) => {
      if (name === UPLOAD_FIELD) progress.textField = true;
    });
    parser.on('partsLimit', () =>
      settle(new ValidationError(`The upload has more than ${MAX_PARTS} form fields.`)),
    );
    parser.on('error', (error: Error) => settle(malformed(error)));
    parser.on('close', () => {
      progress.parsed = true;
      settle(undefined);
    });
    req.on('close', onClose);
    req.pipe(parser);
  });
}

/** Why a parsed upload has no file: its `file` field was text, or it was not there. */
function missingFile({ textField, otherFiles }: UploadProgress): ValidationError {
  if (textField) {
    return new ValidationError(
      `The \`${UPLOAD_FIELD}\` field is text, not a file: attach the document as a file (e.g. curl -F ${UPLOAD_FIELD}=@report.pdf).`,
      { param: UPLOAD_FIELD },
    );
  }
  return new ValidationError(
    `The upload has no \`${UPLOAD_FIELD}\` field${
      otherFiles.length > 0
        ? ` (found a file in ${otherFiles.map((name) => `\`${name}\``).join(', ')})`
        : ''
    }: send the document as the multipart field \`${UPLOAD_FIELD}\`.`,
    { param: UPLOAD_FIELD },
  );
}

/** One file part: the `file` field is read into memory (once, named, not empty); others are drained. */
function readFilePart({
  name,
  stream,
  info,
  progress,
  settle,
  tooLarge,
}: {
  name: string;
  stream: Readable & { truncated?: boolean };
  info: busboy.FileInfo;
  progress: UploadProgress;
  settle: SettleUpload;
  tooLarge: () => PayloadTooLargeError;
}): void {
  // Every file stream gets an error listener first: busboy fails the open one with
  // "Unexpected end of form" when the body ends early, and an unheard stream error would
  // crash the process.
  stream.on('error', (error: Error) => settle(malformed(error)));
  if (name !== UPLOAD_FIELD || progress.settled) {
    if (name !== UPLOAD_FIELD) progress.otherFiles.push(name);
    stream.resume();
    return;
  }
  if (progress.upload !== undefined || progress.pendingFile) {
    stream.resume();
    settle(
      new ValidationError(`Send one file per upload (the \`${UPLOAD_FIELD}\` field came twice).`, {
        param: UPLOAD_FIELD,
      }),
    );
    return;
  }
  const filename = cleanFilename(info.filename);
  if (filename === '') {
    stream.resume();
    settle(
      new ValidationError(
        `The \`${UPLOAD_FIELD}\` field has no file name; send it as a file (e.g. curl -F ${UPLOAD_FIELD}=@report.pdf).`,
        { param: UPLOAD_FIELD },
      ),
    );
    return;
  }
  progress.pendingFile = true;
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    if (progress.settled) return;
    size += chunk.length;
    progress.chunks.push(chunk);
  });
  stream.on('limit', () => settle(tooLarge()));
  stream.on('end', () => {
    progress.pendingFile = false;
    if (progress.settled) return;
    if (size === 0) {
      settle(new ValidationError(`The file ${filename} is empty.`, { param: UPLOAD_FIELD }));
      return;
    }
    progress.upload = {
      filename,
      mediaType: info.mimeType === '' ? 'application/octet-stream' : info.mimeType,
      bytes: Buffer.concat(progress.chunks, size),
    };
    progress.chunks = [];
    settle(undefined);
  });
}
