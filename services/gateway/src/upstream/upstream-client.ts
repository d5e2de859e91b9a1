import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import {
  AbortError,
  ConnectionError,
  StreamInterruptedError,
  UpstreamError,
  UpstreamTimeoutError,
  FleetError,
  safeParseJson,
  toOpenAIErrorBody,
} from '@fleet/errors';
import type { HttpLogger } from '@fleet/http';

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

/** How a forwarded answer ended. */
export type ForwardOutcome = 'complete' | 'interrupted' | 'client-gone';

/** Sees the answer's bytes as they pass (for tracing); never changes them. */
export interface ForwardObserver {
  chunk(buffer: Buffer): void;
  end(outcome: ForwardOutcome): void;
}

/** One chat completion to forward. */
export interface ForwardChatCompletionOptions {
  /** The exact bytes the client sent; forwarded unchanged so every parameter is preserved. */
  body: Buffer;
  /** Whether the client asked for `stream: true`. */
  stream: boolean;
  /** The client's response; the upstream's answer is piped into it. */
  res: ServerResponse;
  requestId: string;
  /** Headers to add to the client's response (routing). */
  responseHeaders: Record<string, string>;
  /** Watches the answer go by, e.g. to trace it. */
  observer?: ForwardObserver | undefined;
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
   * Forwards a chat completion and pipes the answer to `res`. Resolves when the client's response
   * is over. Rejects (before anything was sent) with a typed error for the error middleware:
   * UpstreamError for HTTP errors, ConnectionError, UpstreamTimeoutError.
   */
  forwardChatCompletion(options: ForwardChatCompletionOptions): Promise<void>;
  /** The upstream's model list. */
  listModels(signal?: AbortSignal): Promise<UpstreamModel[]>;
  /** Closes pooled connections. */
  close(): void;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) and ones the gateway owns.
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authenticate',
  'proxy-connection',
  'set-cookie',
  'x-request-id',
  'date',
  'server',
]);

const MAX_ERROR_BODY_BYTES = 64 * 1024;
const STREAM_TAIL_BYTES = 64;
const DONE_MARKER = 'data: [DONE]';

const modelListSchema = z.object({
  data: z.array(
    z.looseObject({
      id: z.string(),
      created: z.number().nullish(),
      owned_by: z.string().nullish(),
    }),
  ),
});

function copyResponseHeaders(from: IncomingHttpHeaders, to: ServerResponse): void {
  for (const [name, value] of Object.entries(from)) {
    if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name) || name.startsWith('proxy-')) {
      continue;
    }
    to.setHeader(name, value);
  }
  const upstreamRequestId = from['x-request-id'];
  if (typeof upstreamRequestId === 'string')
    to.setHeader('x-upstream-request-id', upstreamRequestId);
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function readLimited(response: IncomingMessage, limit: number): Promise<string> {
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

/** The SSE frame that ends a broken stream, in the shape OpenAI SDKs raise as an APIError. */
function streamErrorFrame(error: FleetError): string {
  return `event: error\ndata: ${JSON.stringify(toOpenAIErrorBody(error))}\n\n`;
}

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
  const transport = secure ? https : http;
  const agent = secure
    ? new https.Agent({ keepAlive: true, scheduling: 'lifo' })
    : new http.Agent({ keepAlive: true, scheduling: 'lifo' });
  const authorization = upstream.apiKey ? `Bearer ${upstream.apiKey}` : undefined;
  // Resolved once: http.request would otherwise re-derive these from a URL on every call.
  const chatTarget = urlToHttpOptions(new URL('chat/completions', base));
  const modelsUrl = new URL('models', base);

  function upstreamHeaders(extra: OutgoingHttpHeaders): OutgoingHttpHeaders {
    extra['user-agent'] = 'a2a-fleet-gateway';
    if (authorization) extra['authorization'] = authorization;
    return extra;
  }

  function connectionFailure(error: Error): FleetError {
    if (FleetError.isInstance(error)) return error;
    return new ConnectionError(
      `Could not reach the upstream LLM at ${upstream.baseURL}: ${describeSocketError(error)}.`,
      { cause: error },
    );
  }

  function forwardChatCompletion({
    body,
    stream,
    res,
    requestId,
    responseHeaders,
    observer,
  }: ForwardChatCompletionOptions): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let responded = false;
      let clientGone = false;

      const upstreamRequest = transport.request({
        ...chatTarget,
        method: 'POST',
        agent,
        headers: upstreamHeaders({
          'content-type': 'application/json',
          'content-length': body.length,
          accept: stream ? 'text/event-stream' : 'application/json',
          'x-client-request-id': requestId,
        }),
      });
      upstreamRequest.setTimeout(timeoutMs, () => {
        upstreamRequest.destroy(
          new UpstreamTimeoutError(
            `The upstream LLM sent nothing for ${Math.round(timeoutMs / 1000)} s (LLM_TIMEOUT_MS).`,
          ),
        );
      });

      // A client that disconnects aborts the upstream request (no tokens burnt for nobody).
      const onClientClose = (): void => {
        if (res.writableFinished) return;
        clientGone = true;
        upstreamRequest.destroy(new AbortError('The client closed the connection.'));
      };
      res.once('close', onClientClose);

      upstreamRequest.once('error', (error: Error) => {
        if (clientGone) {
          logger.debug({ requestId }, 'client went away; upstream request aborted');
          resolve();
          return;
        }
        if (!responded) {
          responded = true;
          reject(connectionFailure(error));
        }
        // After the response started, the response's own handlers end the client's stream.
      });

      upstreamRequest.once('response', (upstreamResponse) => {
        const status = upstreamResponse.statusCode ?? 502;
        if (status >= 400) {
          void readLimited(upstreamResponse, MAX_ERROR_BODY_BYTES).then((text) => {
            responded = true;
            const parsed = safeParseJson({
              text,
              schema: z.unknown(),
              subject: 'The upstream error',
            });
            reject(
              new UpstreamError(`The upstream LLM answered HTTP ${status}.`, {
                status,
                body: parsed.success ? parsed.value : text,
                headers: flattenHeaders(upstreamResponse.headers),
              }),
            );
          });
          return;
        }
        responded = true;
        res.statusCode = status;
        copyResponseHeaders(upstreamResponse.headers, res);
        for (const [name, value] of Object.entries(responseHeaders)) res.setHeader(name, value);
        const contentType = upstreamResponse.headers['content-type'] ?? '';
        const isEventStream = contentType.startsWith('text/event-stream');
        if (isEventStream) {
          res.setHeader('x-accel-buffering', 'no');
          // Headers normally leave with the first chunk in one write. If the upstream sent its
          // headers alone (a model still thinking), flush them so the client sees the 200 now.
          setImmediate(() => {
            if (!res.headersSent && !res.destroyed) res.flushHeaders();
          });
        }

        // One data handler instead of pipe(): it forwards each chunk with back-pressure, keeps
        // the stream's tail to check for [DONE], and feeds the observer (fewer listeners per
        // request than pipe plus taps; this is the hot path, see docs/adr/0002).
        let tail: Buffer = Buffer.alloc(0);
        const resume = (): void => {
          upstreamResponse.resume();
        };
        upstreamResponse.on('data', (chunk: Buffer) => {
          if (isEventStream) {
            tail =
              chunk.length >= STREAM_TAIL_BYTES
                ? chunk.subarray(chunk.length - STREAM_TAIL_BYTES)
                : Buffer.concat([tail, chunk]).subarray(-STREAM_TAIL_BYTES);
          }
          observer?.chunk(chunk);
          if (!res.write(chunk)) {
            upstreamResponse.pause();
            res.once('drain', resume);
          }
        });

        let finished = false;
        const finish = (broken: boolean): void => {
          if (finished) return;
          finished = true;
          res.off('drain', resume);
          const interrupted = broken || (isEventStream && !tail.includes(DONE_MARKER));
          const gone = clientGone || res.destroyed;
          observer?.end(gone ? 'client-gone' : interrupted ? 'interrupted' : 'complete');
          if (gone) {
            resolve();
            return;
          }
          if (!interrupted) {
            res.end();
          } else if (isEventStream) {
            logger.warn(
              { requestId },
              'upstream stream ended before [DONE]; ending the client stream with an error',
            );
            res.end(
              streamErrorFrame(
                new StreamInterruptedError(
                  'The upstream LLM stream was cut off before it finished; the answer is incomplete.',
                ),
              ),
            );
          } else {
            // A JSON body cut short cannot be repaired; tear the connection down so the client sees a failure.
            logger.warn(
              { requestId },
              'upstream body ended early; resetting the client connection',
            );
            res.destroy();
          }
          resolve();
        };
        upstreamResponse.once('end', () => finish(false));
        upstreamResponse.once('error', () => finish(true));
        upstreamResponse.once('close', () => finish(!upstreamResponse.complete));
      });

      upstreamRequest.end(body);
    });
  }

  async function listModels(signal?: AbortSignal): Promise<UpstreamModel[]> {
    const text = await new Promise<string>((resolve, reject) => {
      const request = transport.get(
        modelsUrl,
        {
          agent,
          headers: upstreamHeaders({ accept: 'application/json' }),
          ...(signal ? { signal } : {}),
        },
        (response) => {
          const status = response.statusCode ?? 502;
          void readLimited(response, 4 * 1024 * 1024).then((body) => {
            if (status >= 400) {
              const parsed = safeParseJson({ text: body, schema: z.unknown() });
              reject(
                new UpstreamError(`The upstream LLM answered HTTP ${status} to GET /models.`, {
                  status,
                  body: parsed.success ? parsed.value : body,
                  headers: flattenHeaders(response.headers),
                }),
              );
            } else resolve(body);
          });
        },
      );
      request.setTimeout(Math.min(timeoutMs, 10_000), () =>
        request.destroy(
          new UpstreamTimeoutError('The upstream LLM did not list its models in time.'),
        ),
      );
      request.once('error', (error) => reject(connectionFailure(error)));
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

  return {
    baseURL: upstream.baseURL,
    forwardChatCompletion,
    listModels,
    close: () => agent.destroy(),
  };
}
