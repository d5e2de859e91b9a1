import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import {
  AbortError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  parseJson,
} from '@fleet/errors';

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
 * Reads a request body into one buffer, refusing more than `limit` bytes: at once from
 * `content-length`, or as soon as the streamed bytes pass the limit (chunked bodies).
 *
 * @throws PayloadTooLargeError over the limit; AbortError when the client goes away.
 */
export function readBody(req: IncomingMessage, { limit }: ReadBodyOptions): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
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
        req.resume();
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

/** Options for {@link readJsonBody}. */
export interface ReadJsonBodyOptions<TSchema extends z.ZodType> extends ReadBodyOptions {
  schema: TSchema;
}

/** A JSON body: the exact bytes received and the validated value. */
export interface JsonBody<T> {
  raw: Buffer;
  value: T;
}

/**
 * Reads, parses and validates a JSON body. The raw bytes are returned too, so a proxy can forward
 * exactly what the client sent.
 *
 * @throws UnsupportedMediaTypeError for a non-JSON content type; MalformedJsonError;
 *   ValidationError (400 naming the field); PayloadTooLargeError.
 */
export async function readJsonBody<TSchema extends z.ZodType>(
  req: IncomingMessage,
  { limit, schema }: ReadJsonBodyOptions<TSchema>,
): Promise<JsonBody<z.output<TSchema>>> {
  const contentType = req.headers['content-type'];
  if (contentType !== undefined && !/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
    req.resume();
    throw new UnsupportedMediaTypeError(
      `Expected Content-Type: application/json, got '${contentType.slice(0, 100)}'.`,
    );
  }
  const raw = await readBody(req, { limit });
  const value = parseJson({ text: raw.toString('utf8'), schema });
  return { raw, value };
}
