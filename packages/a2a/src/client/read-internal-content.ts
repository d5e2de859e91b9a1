import type { z } from 'zod';
import {
  AbortError,
  errorBodySchema,
  fromErrorBody,
  isConnectFailure,
  networkErrorCode,
  safeParseJson,
  ServiceUnavailableError,
  UpstreamError,
  UpstreamTimeoutError,
  FleetError,
} from '@fleet/errors';
import { sharedBalancedFetch } from '@fleet/http';
import { decodeContentMetadata } from '../fleet/content-route';

/** Largest error body read from a byte route (the fleet's JSON error body is far smaller). */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Options for {@link readInternalContent}. */
export interface ReadInternalContentOptions<TSchema extends z.ZodType> {
  /** The agent's base URL, e.g. `http://rag-agent:8083` (named in errors). */
  baseUrl: string;
  /** The route and query: `runFileContentRoute(id, tenant)` or `documentContentRoute(id, tenant)`. */
  path: string;
  /** The internal token (`Authorization: Bearer`). */
  token: string;
  /** The header that carries the metadata (base64url JSON). */
  header: string;
  /** What the metadata must be; anything else is the agent's fault (502). */
  schema: TSchema;
  /** The most bytes accepted: a larger body is the agent's fault (502), and is not read. */
  maxBytes: number;
  /**
   * The size the metadata announces: a body of any other length is the agent's fault (502).
   * Absent: only `maxBytes` bounds it.
   */
  sizeOf?: ((metadata: z.output<TSchema>) => number) | undefined;
  /** How long the whole read (headers and body) may take. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** @default the process's shared balanced fetch (`@fleet/http`), as the A2A client uses */
  fetch?: typeof fetch | undefined;
  /** Who answers, for errors: "The file store (the RAG agent)". */
  service: string;
  /** What is read, for errors: "file file-0123…". */
  what: string;
}

/** Bytes and what they are, read from one of an agent's byte routes. */
export interface InternalContent<TMetadata> {
  metadata: TMetadata;
  bytes: Buffer;
}

/** A response body read to its end, or undefined (the rest cancelled) once it passes `limit`. */
export async function readLimited(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Buffer | undefined> {
  if (body === null) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, total);
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
}

/** Who a byte route's request went to and what it was for, for {@link connectionFailure}. */
export interface ConnectionFailureContext {
  /** The caller's signal: aborted, the failure is `AbortError`. */
  signal: AbortSignal | undefined;
  /** The request's own time-out signal: aborted, the failure is `UpstreamTimeoutError`. */
  timeout: AbortSignal;
  timeoutMs: number;
  baseUrl: string;
  /** "The file store (the RAG agent)". */
  service: string;
  /** What did not happen in time: "did not send file file-0123…". */
  doing: string;
  /** What the connection failed during: "reading file file-0123…". */
  failing: string;
}

/**
 * The fleet's error for a request to one of an agent's byte routes that failed without an answer
 * (or whose body failed midway): the caller's abort is `AbortError`; the request's time-out
 * `UpstreamTimeoutError`; an agent that cannot be reached the retryable
 * `ServiceUnavailableError`; a connection that broke `UpstreamError` (502).
 */
export function connectionFailure(
  error: unknown,
  { signal, timeout, timeoutMs, baseUrl, service, doing, failing }: ConnectionFailureContext,
): FleetError {
  if (signal?.aborted === true) return new AbortError(undefined, { cause: error });
  if (timeout.aborted) {
    return new UpstreamTimeoutError(`${service} at ${baseUrl} ${doing} within ${timeoutMs} ms.`, {
      cause: error,
    });
  }
  const code = networkErrorCode(error);
  if (code === undefined || isConnectFailure(error)) {
    return new ServiceUnavailableError(
      `${service} is not reachable at ${baseUrl}: start it, or point the fleet at it.`,
      { cause: error, retryable: true },
    );
  }
  return new UpstreamError(
    `The connection to ${service} at ${baseUrl} failed while ${failing} (${code}).`,
    { status: 502, cause: error },
  );
}

/**
 * The fleet's error for an answer of one of an agent's byte routes that is not a success (its
 * body is read, at most 64 KiB): a refused internal token is `ServiceUnavailableError`; the
 * fleet's JSON error body comes back as the same typed error (with `Retry-After` and the request
 * id); anything else, and a 404 that is not the fleet's `NOT_FOUND` (an agent without the
 * route), is `UpstreamError` (502).
 */
export async function routeFailure(
  response: Response,
  { baseUrl, service, what }: { baseUrl: string; service: string; what: string },
): Promise<FleetError> {
  if (response.status === 401) {
    await response.body?.cancel().catch(() => undefined);
    return new ServiceUnavailableError(
      `${service} refused the internal token: the services need the same FLEET_INTERNAL_TOKEN.`,
    );
  }
  const raw = await readLimited(response.body, MAX_ERROR_BODY_BYTES);
  const text = raw?.toString('utf8') ?? '';
  const parsed = safeParseJson({ text, schema: errorBodySchema, subject: 'The error body' });
  const headers: Record<string, string> = {};
  const retryAfter = response.headers.get('retry-after');
  if (retryAfter !== null) headers['retry-after'] = retryAfter;
  const requestId = response.headers.get('x-request-id');
  if (requestId !== null) headers['x-request-id'] = requestId;
  // Only the fleet's own error body is believed; a 404 without one is a route the agent lacks.
  if (!parsed.success || (response.status === 404 && parsed.value.error.code !== 'NOT_FOUND')) {
    return new UpstreamError(
      `${service} at ${baseUrl} answered HTTP ${response.status} without the fleet's error body for ${what}${response.status === 404 ? ' (is it a version without byte routes?)' : ''}.`,
      { status: 502 },
    );
  }
  return fromErrorBody(response.status, parsed.value, headers);
}

/**
 * Reads bytes and their metadata from one of an agent's plain HTTP byte routes (the RAG agent's
 * `/internal/files/:id/content` and `/internal/documents/:id/content`), in one `GET` that leaves
 * no A2A task behind. The agent's typed failures come back as the same errors (`NotFoundError`,
 * the retryable `ServiceUnavailableError` with its wait, …); an agent that cannot be reached, or
 * that refuses the internal token, is `ServiceUnavailableError`; one that does not answer within
 * `timeoutMs` `UpstreamTimeoutError`; a body over `maxBytes`, metadata that is missing or wrong,
 * or an answer that is not the fleet's is `UpstreamError` (502). The caller's abort is `AbortError`.
 *
 * @example
 * const { metadata, bytes } = await readInternalContent({
 *   baseUrl: ragAgentUrl, path: runFileContentRoute(id, tenant), token, header: RUN_FILE_METADATA_HEADER,
 *   schema: runFileSchema, maxBytes: 16 * 1024 * 1024, timeoutMs: 60_000, service: 'The file store', what: `file ${id}`,
 * });
 */
export async function readInternalContent<TSchema extends z.ZodType>({
  baseUrl,
  path,
  token,
  header,
  schema,
  maxBytes,
  sizeOf,
  timeoutMs,
  signal,
  fetch: fetchImpl = sharedBalancedFetch().fetch,
  service,
  what,
}: ReadInternalContentOptions<TSchema>): Promise<InternalContent<z.output<TSchema>>> {
  const url = `${baseUrl.replace(/\/+$/, '')}${path}`;
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);

  const failureOf = (error: unknown): FleetError =>
    connectionFailure(error, {
      signal,
      timeout,
      timeoutMs,
      baseUrl,
      service,
      doing: `did not send ${what}`,
      failing: `reading ${what}`,
    });

  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: 'GET',
      headers: { authorization: `Bearer ${token}`, accept: 'application/octet-stream' },
      signal: combined,
    });
  } catch (error) {
    throw failureOf(error);
  }

  try {
    if (!response.ok) throw await routeFailure(response, { baseUrl, service, what });
    const metadata = decodeContentMetadata(response.headers.get(header), schema);
    if (metadata === undefined) {
      await response.body?.cancel().catch(() => undefined);
      throw new UpstreamError(`${service} sent ${what} without valid metadata (${header}).`, {
        status: 502,
      });
    }
    const expected = sizeOf?.(metadata);
    const declared = Number(response.headers.get('content-length') ?? NaN);
    const limit = Math.min(maxBytes, expected ?? maxBytes);
    if (
      (expected !== undefined && expected > maxBytes) ||
      (Number.isFinite(declared) && declared > limit)
    ) {
      await response.body?.cancel().catch(() => undefined);
      throw new UpstreamError(
        `${service} sent ${what} of ${Math.max(expected ?? 0, Number.isFinite(declared) ? declared : 0)} bytes; at most ${limit} are accepted.`,
        { status: 502 },
      );
    }
    const bytes = await readLimited(response.body, limit);
    if (bytes === undefined || (expected !== undefined && bytes.byteLength !== expected)) {
      throw new UpstreamError(
        `${service} sent ${bytes === undefined ? `more than ${limit}` : bytes.byteLength} bytes for ${what}${expected === undefined ? `; at most ${limit} are accepted` : `, whose metadata says ${expected}`}.`,
        { status: 502 },
      );
    }
    return { metadata, bytes };
  } catch (error) {
    // The body's stream failing (time-out, reset) is the connection's; the rest is decided above.
    throw FleetError.isInstance(error) ? error : failureOf(error);
  }
}
