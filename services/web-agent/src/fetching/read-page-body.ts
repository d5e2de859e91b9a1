import axios from 'axios';
import { PayloadTooLargeError, UnsupportedMediaTypeError, UpstreamError } from '@fleet/errors';
import type { PageResponse } from './request-page';

/** Options for {@link readPageBody}. */
export interface ReadPageBodyOptions {
  response: PageResponse;
  /** The URL the body comes from, for messages. */
  url: string;
  /** Largest body read, after decompression (the request's `maxContentLength`). */
  maxBytes: number;
}

/** A response header as text (`''` when absent). */
export function headerOf(response: PageResponse, name: string): string {
  const value: unknown = response.headers[name];
  return typeof value === 'string' ? value : '';
}

/** The media type, without parameters and lower-cased: `text/html`, `text/plain`, … */
export function mediaTypeOf(response: PageResponse): string {
  return headerOf(response, 'content-type').split(';')[0]?.trim().toLowerCase() ?? '';
}

function charsetOf(response: PageResponse): string {
  const match = /charset\s*=\s*"?([\w.:-]+)"?/i.exec(headerOf(response, 'content-type'));
  return match?.[1]?.toLowerCase() ?? 'utf-8';
}

function decodeText(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** axios's refusal of a body over `maxContentLength` (an AxiosError with no code of its own). */
function isOverContentLength(error: unknown): boolean {
  return (
    axios.isAxiosError(error) &&
    error.code === axios.AxiosError.ERR_BAD_RESPONSE &&
    error.message.startsWith('maxContentLength size of')
  );
}

/** A zlib error (`Z_DATA_ERROR`, …) or a brotli one (`ERR__ERROR_FORMAT_…`). */
function isDecompressionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(Z_|ERR__)/.test(code);
}

/**
 * The Content-Encoding the server declared. axios removes the header once it has set up the
 * decompression, so it is read from the raw headers of the last hop's response.
 */
function declaredEncoding(response: PageResponse): string {
  const request = response.request as { res?: { rawHeaders?: unknown } } | undefined;
  const raw = request?.res?.rawHeaders;
  if (Array.isArray(raw)) {
    for (let index = 0; index + 1 < raw.length; index += 2) {
      if (String(raw[index]).toLowerCase() === 'content-encoding') {
        return String(raw[index + 1])
          .trim()
          .toLowerCase();
      }
    }
  }
  return 'unknown';
}

/**
 * Reads a page's body (decompressed by axios) as text in its declared charset (UTF-8 when it
 * declares none or one `TextDecoder` does not know). Bodies over `maxBytes`, declared or read, are
 * refused, and so are content encodings axios did not decode.
 *
 * @throws PayloadTooLargeError, UnsupportedMediaTypeError (content encoding), UpstreamError (a
 *   body that does not decompress).
 * @example
 * const body = await readPageBody({ response, url: guard.current.href, maxBytes });
 */
export async function readPageBody({
  response,
  url,
  maxBytes,
}: ReadPageBodyOptions): Promise<string> {
  const stream = response.data;
  const tooLarge = (): PayloadTooLargeError =>
    new PayloadTooLargeError(
      `${url} is larger than the ${maxBytes} bytes the web agent reads (WEB_FETCH_MAX_BYTES).`,
      { details: { url, limit: maxBytes } },
    );
  const declared = Number(headerOf(response, 'content-length') || NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    stream.destroy();
    throw tooLarge();
  }
  // axios removes the header of the encodings it decoded; what is left was not decoded.
  const encoding = headerOf(response, 'content-encoding').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    stream.destroy();
    throw new UnsupportedMediaTypeError(
      `${url} uses the content encoding ${encoding}, which the web agent does not read.`,
    );
  }
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream as AsyncIterable<Buffer | string>) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    }
  } catch (error) {
    if (isOverContentLength(error)) throw tooLarge();
    if (isDecompressionError(error)) {
      throw new UpstreamError(
        `${url} sent a body that does not decompress (${declaredEncoding(response)}).`,
        { status: 502, cause: error },
      );
    }
    throw error;
  }
  return decodeText(Buffer.concat(chunks), charsetOf(response));
}
