import type { z } from 'zod';
import {
  AbortError,
  ConnectionError,
  PayloadTooLargeError,
  UpstreamError,
  UpstreamTimeoutError,
  safeParseJson,
} from '@fleet/errors';

/** Options for {@link callProvider}. */
export interface CallProviderOptions<TSchema extends z.ZodType> {
  /** Names the provider in messages: `Tavily`, `SearXNG`. */
  provider: string;
  url: string;
  init: RequestInit;
  /** The response body's schema: minimal and tolerant (CONTRIBUTING.md convention 9). */
  schema: TSchema;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Largest response body read. @default 4194304 (4 MiB) */
  maxBytes?: number;
  /** The message for an error status, when the provider's own words need context. */
  describeStatus?: (status: number, body: string) => string | undefined;
}

async function readLimited(
  response: Response,
  maxBytes: number,
  provider: string,
): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
    if (done || value === undefined) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new PayloadTooLargeError(`${provider} answered with more than ${maxBytes} bytes.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One call to a search provider's API (the operator's configured URL, so no page-fetch address
 * guard): a time limit, a size limit, and typed errors that name the provider. Resolves with the
 * body parsed with `schema`.
 *
 * @example
 * const body = await callProvider({ provider: 'SearXNG', url, init: { method: 'GET' }, schema, timeoutMs: 15_000 });
 */
export async function callProvider<TSchema extends z.ZodType>({
  provider,
  url,
  init,
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
    const response = await fetch(url, { ...init, signal: combined, redirect: 'error' });
    status = response.status;
    text = await readLimited(response, maxBytes, provider);
  } catch (error) {
    if (signal?.aborted === true) throw new AbortError(`The ${provider} search was cancelled.`);
    if (timeout.aborted) {
      throw new UpstreamTimeoutError(`${provider} did not answer within ${timeoutMs} ms.`, {
        cause: error,
      });
    }
    if (error instanceof PayloadTooLargeError) throw error;
    throw new ConnectionError(`Could not reach ${provider} at ${new URL(url).origin}.`, {
      cause: error,
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
