import axios from 'axios';
import type { z } from 'zod';
import {
  AbortError,
  ConnectionError,
  PayloadTooLargeError,
  UpstreamError,
  UpstreamTimeoutError,
  safeParseJson,
} from '@fleet/errors';

/** The HTTP request a provider makes. */
export interface ProviderRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** The request body (JSON text), for POST. */
  body?: string;
}

/** Options for {@link callProvider}. */
export interface CallProviderOptions<TSchema extends z.ZodType> {
  /** Names the provider in messages: `Tavily`, `SearXNG`. */
  provider: string;
  url: string;
  request: ProviderRequest;
  /** The response body's schema: minimal and tolerant (CONTRIBUTING.md convention 9). */
  schema: TSchema;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Largest response body read, after decompression. @default 4194304 (4 MiB) */
  maxBytes?: number;
  /** The message for an error status, when the provider's own words need context. */
  describeStatus?: (status: number, body: string) => string | undefined;
}

/** The statuses fetch's `redirect: 'error'` refused: a provider's redirect is never followed. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

// Its own instance: interceptors or defaults set on axios's global one do not apply here.
const client = axios.create();

/** axios's refusal of a body over `maxContentLength` (an AxiosError with no code of its own). */
function isOverContentLength(error: unknown): boolean {
  return (
    axios.isAxiosError(error) &&
    error.code === axios.AxiosError.ERR_BAD_RESPONSE &&
    error.message.startsWith('maxContentLength size of')
  );
}

/** Sends the request; resolves with the status and the body text, whatever the status. */
async function send({
  url,
  request,
  signal,
  maxBytes,
}: {
  url: string;
  request: ProviderRequest;
  signal: AbortSignal;
  maxBytes: number;
}): Promise<{ status: number; text: string }> {
  const response = await client.request<Buffer>({
    adapter: 'http',
    url,
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { data: request.body }),
    responseType: 'arraybuffer',
    maxContentLength: maxBytes,
    // A redirect is an error, not followed (the operator configured this URL).
    maxRedirects: 0,
    // The configured URL is called directly: no proxy from the environment.
    proxy: false,
    validateStatus: () => true,
    signal,
  });
  return { status: response.status, text: Buffer.from(response.data).toString('utf8') };
}

/**
 * One call to a search provider's API (the operator's configured URL, so no page-fetch address
 * guard), through axios's Node adapter: a time limit, a size limit (`maxContentLength`, after
 * decompression), redirects refused, and typed errors that name the provider. Resolves with the
 * body parsed with `schema`.
 *
 * @example
 * const body = await callProvider({ provider: 'SearXNG', url, request: { method: 'GET', headers: {} }, schema, timeoutMs: 15_000 });
 */
export async function callProvider<TSchema extends z.ZodType>({
  provider,
  url,
  request,
  schema,
  timeoutMs,
  signal,
  maxBytes = 4 * 1024 * 1024,
  describeStatus = () => undefined,
}: CallProviderOptions<TSchema>): Promise<z.output<TSchema>> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
  let text: string;
  let status: number;
  try {
    ({ status, text } = await send({ url, request, signal: combined, maxBytes }));
  } catch (error) {
    if (signal?.aborted === true) throw new AbortError(`The ${provider} search was cancelled.`);
    if (timeout.aborted) {
      throw new UpstreamTimeoutError(`${provider} did not answer within ${timeoutMs} ms.`, {
        cause: error,
      });
    }
    if (isOverContentLength(error)) {
      throw new PayloadTooLargeError(`${provider} answered with more than ${maxBytes} bytes.`);
    }
    throw new ConnectionError(`Could not reach ${provider} at ${new URL(url).origin}.`, {
      cause: error,
    });
  }
  if (REDIRECT_STATUSES.has(status)) {
    // As fetch's `redirect: 'error'` did: the configured URL is wrong, not the provider.
    throw new ConnectionError(`Could not reach ${provider} at ${new URL(url).origin}.`, {
      cause: new Error(`unexpected redirect (HTTP ${status})`),
    });
  }
  if (status < 200 || status >= 300) {
    const message =
      describeStatus(status, text) ?? `${provider} answered HTTP ${status}: ${text.slice(0, 200)}`;
    throw new UpstreamError(message, {
      status: status >= 400 ? status : 502,
      details: { provider, status },
    });
  }
  const parsed = safeParseJson({ text, schema, subject: `${provider}'s response` });
  if (!parsed.success) {
    throw new UpstreamError(parsed.error.message, { status: 502, cause: parsed.error });
  }
  return parsed.value;
}
