import type http from 'node:http';
import type https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { safeParseJson, UpstreamError, type FleetError } from '@fleet/errors';
import type { HttpLogger } from '@fleet/http';

/** The upstream paths the gateway forwards to, below the upstream's base URL. */
export type UpstreamEndpoint = 'chat/completions' | 'responses' | 'embeddings';

/** Every {@link UpstreamEndpoint}, for resolving them once. */
export const UPSTREAM_ENDPOINTS: readonly UpstreamEndpoint[] = [
  'chat/completions',
  'responses',
  'embeddings',
];

/** What every call to the upstream shares: the pool, the resolved targets and the failure mapping. */
export interface UpstreamConnection {
  baseURL: string;
  transport: typeof http | typeof https;
  agent: http.Agent;
  /** `POST …/chat/completions`, `…/responses`, `…/embeddings`, resolved once. */
  targets: Record<UpstreamEndpoint, http.RequestOptions>;
  modelsUrl: URL;
  /** Longest silence from the upstream (before headers or between stream chunks). */
  timeoutMs: number;
  logger: HttpLogger;
  /** Adds the user agent and the upstream's authorization to a request's headers. */
  headers(extra: OutgoingHttpHeaders): OutgoingHttpHeaders;
  /** A socket error as the typed error the client sees (ConnectionError naming the upstream). */
  connectionFailure(error: Error): FleetError;
}

/** Reads at most `limit` bytes of a response as text; never rejects. */
export function readLimited(response: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      if (size < limit) chunks.push(chunk.subarray(0, limit - size));
      size += chunk.length;
    });
    const finish = (): void => resolve(Buffer.concat(chunks).toString('utf8'));
    response.once('end', finish);
    response.once('error', finish);
    response.once('close', finish);
  });
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/**
 * The upstream's HTTP error as an UpstreamError carrying its status, body (parsed when it is JSON,
 * so an OpenAI envelope reaches the client as sent) and headers (`retry-after` travels on).
 */
export function upstreamHttpError({
  response,
  text,
  message,
}: {
  response: IncomingMessage;
  text: string;
  message: string;
}): UpstreamError {
  const parsed = safeParseJson({ text, schema: z.unknown(), subject: 'The upstream error' });
  return new UpstreamError(message, {
    status: response.statusCode ?? 502,
    body: parsed.success ? parsed.value : text,
    headers: flattenHeaders(response.headers),
  });
}
