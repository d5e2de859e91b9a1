import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import {
  AbortError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  parseJson,
} from '@fleet/errors';
import { boundedValidationError } from './bounded-validation-error';
import { countJsonContainers } from './count-json-containers';

const ANY_JSON = z.unknown();

/** Options for {@link readBody}. */
export interface ReadBodyOptions {
  /** Largest accepted body in bytes; larger bodies fail with a 413. */
  limit: number;
}

function describeLimit(limit: number): string {
  return limit >= 1024 * 1024
    ? `${(limit / (1024 * 1024)).toFixed(limit % (1024 * 1024) === 0 ? 0 : 1)} MiB`
    : `${limit} bytes`;
}

/**
 * Most bytes of a refused body read and thrown away, so that its error response reaches a client
 * that is still sending (closing a socket with unread data resets it); past this the connection is
 * closed.
 */
export const DISCARD_LIMIT = 8 * 1024 * 1024;

/**
 * Throws away the rest of a request body that will not be read (a 4xx was decided), at most
 * `maxBytes` of it; then the connection is closed instead. Safe to call more than once.
 */
export function discardBody(
  req: IncomingMessage,
  { maxBytes = DISCARD_LIMIT }: { maxBytes?: number } = {},
): void {
  if (req.complete || req.destroyed) return;
  let discarded = 0;
  const onData = (chunk: Buffer): void => {
    discarded += chunk.length;
    if (discarded > maxBytes) {
      req.off('data', onData);
      req.destroy();
    }
  };
  req.on('data', onData);
  req.once('end', () => req.off('data', onData));
  req.resume();
}

/**
 * The 415 for a body sent with a `Content-Encoding` (gzip, br, deflate, …), whose rest it throws
 * away; undefined for an uncompressed body. Bodies are read as sent, so a size limit bounds exactly
 * what the server holds and nothing is ever inflated (no decompression bombs).
 *
 * @example
 * const refused = encodedBodyError(req);
 * if (refused) throw refused;
 */
export function encodedBodyError(req: IncomingMessage): UnsupportedMediaTypeError | undefined {
  const encoding = req.headers['content-encoding']?.trim().toLowerCase();
  if (encoding === undefined || encoding === '' || encoding === 'identity') return undefined;
  discardBody(req);
  return new UnsupportedMediaTypeError(
    `Request bodies with Content-Encoding: ${encoding.slice(0, 50)} are not accepted; send the body uncompressed (without a Content-Encoding header).`,
    { details: { contentEncoding: encoding.slice(0, 50) } },
  );
}

/**
 * Reads a request body into one buffer, refusing more than `limit` bytes: at once from
 * `content-length`, or as soon as the streamed bytes pass the limit (chunked bodies). Compressed
 * bodies are refused ({@link encodedBodyError}).
 *
 * @throws PayloadTooLargeError over the limit; UnsupportedMediaTypeError for a `Content-Encoding`;
 *   AbortError when the client goes away.
 */
export function readBody(req: IncomingMessage, { limit }: ReadBodyOptions): Promise<Buffer> {
  const encoded = encodedBodyError(req);
  if (encoded !== undefined) return Promise.reject(encoded);
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    discardBody(req);
    return Promise.reject(
      new PayloadTooLargeError(
        `The request body is ${declared} bytes; the limit is ${describeLimit(limit)}.`,
        { details: { limit } },
      ),
    );
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const settle = (error: Error | undefined): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (error) {
        chunks.length = 0;
        discardBody(req);
        reject(error);
      } else {
        resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, received));
      }
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) {
        settle(
          new PayloadTooLargeError(
            `The request body is larger than the limit of ${describeLimit(limit)}.`,
            { details: { limit } },
          ),
        );
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => settle(undefined);
    const onError = (error: Error): void =>
      settle(new AbortError('The client aborted the request body.', { cause: error }));
    const onClose = (): void => {
      if (!req.complete) settle(new AbortError('The client closed the connection mid-body.'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * Most objects and arrays one JSON request body may hold. `JSON.parse` turns each into a heap
 * object (an 8 MiB body of `{}` is 2.7 million of them: half a gigabyte and a second of CPU), so
 * the count is checked on the bytes first ({@link countJsonContainers}). Real requests hold far
 * fewer: a conversation of 10 000 messages with content parts is about 30 000.
 */
export const MAX_JSON_CONTAINERS = 100_000;

/** Options for {@link readJsonBody}. */
export interface ReadJsonBodyOptions<TSchema extends z.ZodType> extends ReadBodyOptions {
  schema: TSchema;
  /** Most objects and arrays in the body; more is a 413. @default {@link MAX_JSON_CONTAINERS} */
  maxContainers?: number;
}

/** A JSON body: the exact bytes received and the validated value. */
export interface JsonBody<T> {
  raw: Buffer;
  value: T;
}

/**
 * Reads, parses and validates a JSON body. The raw bytes are returned too, so a proxy can forward
 * exactly what the client sent. Work is bounded by the body's size and shape, not by what it
 * asks for: its objects and arrays are counted on the bytes before it is parsed
 * (`maxContainers`), and its validation error names the first problems only.
 *
 * @throws UnsupportedMediaTypeError for a non-JSON content type; MalformedJsonError;
 *   ValidationError (400 naming the first problems, {@link boundedValidationError});
 *   PayloadTooLargeError (over `limit` bytes, or over `maxContainers` objects and arrays).
 */
export async function readJsonBody<TSchema extends z.ZodType>(
  req: IncomingMessage,
  { limit, schema, maxContainers = MAX_JSON_CONTAINERS }: ReadJsonBodyOptions<TSchema>,
): Promise<JsonBody<z.output<TSchema>>> {
  const contentType = req.headers['content-type'];
  if (contentType !== undefined && !/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
    discardBody(req);
    throw new UnsupportedMediaTypeError(
      `Expected Content-Type: application/json, got '${contentType.slice(0, 100)}'.`,
    );
  }
  const raw = await readBody(req, { limit });
  if (countJsonContainers(raw, maxContainers) > maxContainers) {
    throw new PayloadTooLargeError(
      `The request body holds more than ${maxContainers} JSON objects and arrays; send fewer items.`,
      { details: { maxContainers } },
    );
  }
  // JSON and its depth first, then the schema: its error is bounded (boundedValidationError), and
  // so is its work when its arrays are boundedArray ones.
  const json = parseJson({ text: raw.toString('utf8'), schema: ANY_JSON });
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw boundedValidationError(parsed.error);
  return { raw, value: parsed.data };
}
