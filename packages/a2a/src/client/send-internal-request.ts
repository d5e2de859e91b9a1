import type { z } from 'zod';
import { FleetError, safeParseJson, UpstreamError } from '@fleet/errors';
import { sharedBalancedFetch } from '@fleet/http';
import { connectionFailure, readLimited, routeFailure } from './read-internal-content';

/** Largest JSON answer read from a write route (a `RunFile` or `{ deleted }` is far smaller). */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Options for {@link sendInternalRequest}. */
export interface SendInternalRequestOptions<TSchema extends z.ZodType> {
  /** The agent's base URL, e.g. `http://rag-agent:8083` (named in errors). */
  baseUrl: string;
  /** The route and query: `runFilesRoute(tenant)` or `runFileRoute(id, tenant)`. */
  path: string;
  method: 'POST' | 'DELETE';
  /** The internal token (`Authorization: Bearer`). */
  token: string;
  /** Further request headers (the body's type, its metadata header). */
  headers?: Record<string, string> | undefined;
  /** The request body, sent as it is (with its `Content-Length`). */
  body?: Uint8Array | undefined;
  /** What a successful answer's JSON must be; anything else is the agent's fault (502). */
  schema: TSchema;
  /** Largest answer read; a larger one is the agent's fault (502). @default 65536 */
  maxAnswerBytes?: number | undefined;
  /** How long the whole request (body sent, answer read) may take. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** @default the process's shared balanced fetch (`@fleet/http`) */
  fetch?: typeof fetch | undefined;
  /** Who answers, for errors: "The file store (the RAG agent)". */
  service: string;
  /** What is sent, for errors: "chart.png". */
  what: string;
}

/**
 * Sends one plain HTTP request to one of an agent's internal routes (the RAG agent's
 * `POST /internal/files`, `DELETE /internal/files/:id` and `POST /internal/search`) and reads its JSON answer, checked
 * against `schema`; no A2A task is left behind. Failures are those of {@link readInternalContent}:
 * the agent's typed errors come back as the same errors (`ValidationError`,
 * `PayloadTooLargeError`, the retryable `ServiceUnavailableError` with its wait, …); an agent that
 * cannot be reached, or that refuses the internal token, is `ServiceUnavailableError`; one that
 * does not answer within `timeoutMs` `UpstreamTimeoutError`; an answer that is not the fleet's, or
 * not what `schema` says, `UpstreamError` (502). The caller's abort is `AbortError`.
 *
 * @example
 * const file = await sendInternalRequest({
 *   baseUrl: ragAgentUrl, path: runFilesRoute(tenant), method: 'POST', token, body: bytes,
 *   headers: { 'content-type': 'application/octet-stream', [RUN_FILE_PUT_HEADER]: encodeContentMetadata(metadata) },
 *   schema: runFileSchema, timeoutMs: 60_000, service: 'The file store', what: 'chart.png',
 * });
 */
export async function sendInternalRequest<TSchema extends z.ZodType>({
  baseUrl,
  path,
  method,
  token,
  headers = {},
  body,
  schema,
  maxAnswerBytes = MAX_ANSWER_BYTES,
  timeoutMs,
  signal,
  fetch: fetchImpl = sharedBalancedFetch().fetch,
  service,
  what,
}: SendInternalRequestOptions<TSchema>): Promise<z.output<TSchema>> {
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
      doing: `did not answer for ${what}`,
      failing: `sending ${what}`,
    });

  let response: Response;
  try {
    response = await fetchImpl(url, {
      method,
      headers: { ...headers, authorization: `Bearer ${token}`, accept: 'application/json' },
      ...(body === undefined ? {} : { body }),
      signal: combined,
    });
  } catch (error) {
    throw failureOf(error);
  }

  try {
    if (!response.ok) throw await routeFailure(response, { baseUrl, service, what });
    const raw = await readLimited(response.body, maxAnswerBytes);
    const parsed =
      raw === undefined
        ? undefined
        : safeParseJson({ text: raw.toString('utf8'), schema, subject: 'The answer' });
    if (parsed === undefined || !parsed.success) {
      throw new UpstreamError(
        `${service} at ${baseUrl} answered ${method} for ${what} with HTTP ${response.status} and ${raw === undefined ? `more than ${maxAnswerBytes} bytes` : 'a body that is not what the route answers'}.`,
        { status: 502 },
      );
    }
    return parsed.value;
  } catch (error) {
    throw FleetError.isInstance(error) ? error : failureOf(error);
  }
}
