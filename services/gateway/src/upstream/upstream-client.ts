import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import type { OutgoingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { ConnectionError, UpstreamTimeoutError, FleetError, safeParseJson } from '@fleet/errors';
import type { HttpLogger } from '@fleet/http';
import { forwardRequest, type ForwardRequestOptions } from './forward-request';
import {
  readLimited,
  UPSTREAM_ENDPOINTS,
  upstreamHttpError,
  type UpstreamConnection,
  type UpstreamEndpoint,
} from './upstream-connection';

/** An upstream that is configured (offline mode never builds a client). */
export interface OnlineUpstream {
  baseURL: string;
  apiKey: string | undefined;
}

/** Options for {@link createUpstreamClient}. */
export interface UpstreamClientOptions {
  upstream: OnlineUpstream;
  /** Longest silence from the upstream (before headers or between stream chunks). */
  timeoutMs: number;
  logger: HttpLogger;
}

/** One model from the upstream's `/models`. */
export interface UpstreamModel {
  id: string;
  object: string;
  created: number;
  owned_by: string;
}

/** The gateway's connection to the upstream LLM. */
export interface UpstreamClient {
  readonly baseURL: string;
  /**
   * Forwards a chat completion, a response or embeddings (`options.endpoint`) and pipes the answer
   * to `res`. Resolves when the client's response is over. Rejects (before anything was sent)
   * with a typed error for the error middleware: UpstreamError for HTTP errors, ConnectionError,
   * UpstreamTimeoutError.
   */
  forward(options: ForwardRequestOptions): Promise<void>;
  /** The upstream's model list. */
  listModels(signal?: AbortSignal): Promise<UpstreamModel[]>;
  /** Closes pooled connections. */
  close(): void;
}

const MAX_MODEL_LIST_BYTES = 4 * 1024 * 1024;

const modelListSchema = z.object({
  data: z.array(
    z.looseObject({
      id: z.string(),
      created: z.number().nullish(),
      owned_by: z.string().nullish(),
    }),
  ),
});

function describeSocketError(error: Error & { code?: string }): string {
  return error.code ? `${error.code}` : error.message;
}

/**
 * Builds the upstream client: a keep-alive connection pool and a byte-for-byte proxy that watches
 * streams for their `[DONE]` terminator, so a cut-off stream never looks like a finished one.
 */
export function createUpstreamClient({
  upstream,
  timeoutMs,
  logger,
}: UpstreamClientOptions): UpstreamClient {
  const base = new URL(`${upstream.baseURL}/`);
  const secure = base.protocol === 'https:';
  const agent = secure
    ? new https.Agent({ keepAlive: true, scheduling: 'lifo' })
    : new http.Agent({ keepAlive: true, scheduling: 'lifo' });
  const authorization = upstream.apiKey ? `Bearer ${upstream.apiKey}` : undefined;
  const connection: UpstreamConnection = {
    baseURL: upstream.baseURL,
    transport: secure ? https : http,
    agent,
    // Resolved once: http.request would otherwise re-derive these from a URL on every call.
    targets: Object.fromEntries(
      UPSTREAM_ENDPOINTS.map((endpoint) => [endpoint, urlToHttpOptions(new URL(endpoint, base))]),
    ) as Record<UpstreamEndpoint, http.RequestOptions>,
    modelsUrl: new URL('models', base),
    timeoutMs,
    logger,
    headers(extra: OutgoingHttpHeaders): OutgoingHttpHeaders {
      extra['user-agent'] = 'a2a-fleet-gateway';
      if (authorization) extra['authorization'] = authorization;
      return extra;
    },
    connectionFailure(error: Error): FleetError {
      if (FleetError.isInstance(error)) return error;
      return new ConnectionError(
        `Could not reach the upstream LLM at ${upstream.baseURL}: ${describeSocketError(error)}.`,
        { cause: error },
      );
    },
  };
  return {
    baseURL: upstream.baseURL,
    forward: (options) => forwardRequest(connection, options),
    listModels: (signal) => listModels(connection, signal),
    close: () => agent.destroy(),
  };
}

/** `GET …/models`, in OpenAI's model shape. */
async function listModels(
  connection: UpstreamConnection,
  signal?: AbortSignal,
): Promise<UpstreamModel[]> {
  const text = await new Promise<string>((resolve, reject) => {
    const request = connection.transport.get(
      connection.modelsUrl,
      {
        agent: connection.agent,
        headers: connection.headers({ accept: 'application/json' }),
        ...(signal ? { signal } : {}),
      },
      (response) => {
        const status = response.statusCode ?? 502;
        void readLimited(response, MAX_MODEL_LIST_BYTES).then((body) => {
          if (status >= 400) {
            reject(
              upstreamHttpError({
                response,
                text: body,
                message: `The upstream LLM answered HTTP ${status} to GET /models.`,
              }),
            );
          } else resolve(body);
        });
      },
    );
    request.setTimeout(Math.min(connection.timeoutMs, 10_000), () =>
      request.destroy(
        new UpstreamTimeoutError('The upstream LLM did not list its models in time.'),
      ),
    );
    request.once('error', (error) => reject(connection.connectionFailure(error)));
  });
  const parsed = safeParseJson({
    text,
    schema: modelListSchema,
    subject: "The upstream's model list",
  });
  if (!parsed.success) throw parsed.error;
  return parsed.value.data.map((model) => ({
    id: model.id,
    object: 'model',
    created: model.created ?? 0,
    owned_by: model.owned_by ?? 'upstream',
  }));
}
