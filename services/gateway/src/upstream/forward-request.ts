import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  AbortError,
  StreamInterruptedError,
  UpstreamTimeoutError,
  type FleetError,
} from '@fleet/errors';
import { injectRequestContext } from '@fleet/telemetry';
import { renderOpenAIError } from '../openai';
import { createStreamEndCheck } from './stream-end-check';
import {
  readLimited,
  upstreamHttpError,
  type UpstreamConnection,
  type UpstreamEndpoint,
} from './upstream-connection';

/** How a forwarded answer ended. */
export type ForwardOutcome = 'complete' | 'interrupted' | 'client-gone';

/** Sees the answer's bytes as they pass (for tracing); never changes them. */
export interface ForwardObserver {
  chunk(buffer: Buffer): void;
  end(outcome: ForwardOutcome): void;
}

/** One request to forward: a chat completion, a response or embeddings. */
export interface ForwardRequestOptions {
  /** Where it goes: the upstream's path below its base URL. */
  endpoint: UpstreamEndpoint;
  /** The exact bytes the client sent; forwarded unchanged so every parameter is preserved. */
  body: Buffer;
  /** Whether the client asked for `stream: true` (always false for embeddings). */
  stream: boolean;
  /** The client's response; the upstream's answer is piped into it. */
  res: ServerResponse;
  requestId: string;
  /** Headers to add to the client's response (routing). */
  responseHeaders: Record<string, string>;
  /** Watches the answer go by, e.g. to trace it. */
  observer?: ForwardObserver | undefined;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) and ones the gateway owns: its origin's policies (CORS,
// HSTS, Alt-Svc, cross-origin and reporting policies) are decided by the gateway, never by the
// upstream's origin (docs/security.md).
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
  'timing-allow-origin',
  'alt-svc',
  'strict-transport-security',
  'nel',
  'report-to',
  'reporting-endpoints',
]);
const DROPPED_RESPONSE_PREFIXES = ['proxy-', 'access-control-', 'cross-origin-'];

const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The header names the upstream's `Connection` header lists: hop-by-hop too (RFC 9110 §7.6.1). */
function connectionOptions(from: IncomingHttpHeaders): Set<string> | undefined {
  const value = from['connection'];
  if (value === undefined) return undefined;
  return new Set(value.split(',').map((name) => name.trim().toLowerCase()));
}

/**
 * The upstream's headers onto the client's response, without hop-by-hop ones and the gateway's
 * own. The gateway's own `x-ratelimit-*` (the tenant's limits, already set) win over the
 * upstream's, which describe the fleet's upstream key, shared by every tenant (docs/limits.md);
 * without tenant limits the upstream's pass through.
 */
function copyResponseHeaders(from: IncomingHttpHeaders, to: ServerResponse): void {
  const listed = connectionOptions(from);
  for (const [name, value] of Object.entries(from)) {
    if (
      value === undefined ||
      DROPPED_RESPONSE_HEADERS.has(name) ||
      DROPPED_RESPONSE_PREFIXES.some((prefix) => name.startsWith(prefix)) ||
      listed?.has(name) === true
    ) {
      continue;
    }
    if (name.startsWith('x-ratelimit-') && to.hasHeader(name)) continue;
    to.setHeader(name, value);
  }
  const upstreamRequestId = from['x-request-id'];
  if (typeof upstreamRequestId === 'string')
    to.setHeader('x-upstream-request-id', upstreamRequestId);
}

/**
 * Forwards a request to the upstream and pipes the answer to `res`, byte for byte, watching a
 * stream for its end (`[DONE]` for chat, a terminal event for Responses: {@link createStreamEndCheck})
 * so a cut-off stream never looks like a finished one. Resolves when the client's response is
 * over; rejects (before anything was sent) with UpstreamError for HTTP errors, ConnectionError or
 * UpstreamTimeoutError.
 *
 * `timeoutMs` (LLM_TIMEOUT_MS) bounds every silence of the upstream: before its headers, and
 * between its body's bytes. A JSON answer's status and headers are held until its first body
 * bytes, so an upstream that sends headers and then nothing is still a 504 (or a 502 when it
 * closes); a stream's headers go out at once (the client sees the 200), so a stream that falls
 * silent ends with an OpenAI `event: error` frame naming the time-out (docs/security.md).
 */
export function forwardRequest(
  connection: UpstreamConnection,
  options: ForwardRequestOptions,
): Promise<void> {
  const { endpoint, body, stream, res, requestId } = options;
  const { timeoutMs, logger } = connection;
  return new Promise<void>((resolve, reject) => {
    let responded = false;
    let silence: UpstreamTimeoutError | undefined;

    const headers = connection.headers({
      'content-type': 'application/json',
      'content-length': body.length,
      accept: stream ? 'text/event-stream' : 'application/json',
      'x-client-request-id': requestId,
    });
    // The hot path does not enter the request's trace context: its `traceparent` is written here,
    // from the request's span (docs/tracing.md §7).
    injectRequestContext(res.req, headers);
    const upstreamRequest = connection.transport.request({
      ...connection.targets[endpoint],
      method: 'POST',
      agent: connection.agent,
      headers,
    });
    upstreamRequest.setTimeout(timeoutMs, () => {
      silence = new UpstreamTimeoutError(
        `The upstream LLM sent nothing for ${Math.round(timeoutMs / 1000)} s (LLM_TIMEOUT_MS).`,
      );
      upstreamRequest.destroy(silence);
    });

    // A client that disconnects aborts the upstream request (no tokens burnt for nobody). The
    // upstream sends its own keep-alives, passed through with its bytes. This is a byte pipe, not
    // an SSE writer: it stays on plain listeners (the hot path, docs/adr/0002).
    const client = { gone: false };
    const onClientClose = (): void => {
      if (res.writableFinished) return;
      client.gone = true;
      upstreamRequest.destroy(new AbortError('The client closed the connection.'));
    };
    res.once('close', onClientClose);

    upstreamRequest.once('error', (error: Error) => {
      if (client.gone) {
        logger.debug({ requestId }, 'client went away; upstream request aborted');
        resolve();
        return;
      }
      if (!responded) {
        responded = true;
        reject(connection.connectionFailure(error));
      }
      // After the response started, the response's own handlers end the client's stream.
    });

    upstreamRequest.once('response', (upstreamResponse) => {
      const status = upstreamResponse.statusCode ?? 502;
      if (status >= 400) {
        void readLimited(upstreamResponse, MAX_ERROR_BODY_BYTES).then((text) => {
          responded = true;
          reject(
            upstreamHttpError({
              response: upstreamResponse,
              text,
              message: `The upstream LLM answered HTTP ${status}.`,
            }),
          );
        });
        return;
      }
      responded = true;
      pipeAnswer({
        upstreamResponse,
        client,
        options,
        logger,
        done: resolve,
        fail: reject,
        silence: () => silence,
      });
    });

    upstreamRequest.end(body);
  });
}

/**
 * Ends a client response whose upstream answer was cut off after some of it went out: a stream
 * with the `event: error` frame the gateway's own streams end with (naming the time-out when the
 * upstream fell silent); a JSON body, which cannot be repaired, by resetting the connection.
 */
function endCutOffAnswer(
  res: ServerResponse,
  {
    isEventStream,
    timedOut,
    logger,
    requestId,
  }: {
    isEventStream: boolean;
    timedOut: UpstreamTimeoutError | undefined;
    logger: UpstreamConnection['logger'];
    requestId: ForwardRequestOptions['requestId'];
  },
): void {
  if (isEventStream) {
    logger.warn(
      { requestId, timedOut: timedOut !== undefined },
      'upstream stream ended before its end event; ending the client stream with an error',
    );
    // The same `event: error` frame the gateway's own streams end with (renderOpenAIError).
    const error =
      timedOut === undefined
        ? new StreamInterruptedError(
            'The upstream LLM stream was cut off before it finished; the answer is incomplete.',
          )
        : new UpstreamTimeoutError(`${timedOut.message} The answer is incomplete.`);
    res.end(`event: error\ndata: ${JSON.stringify(renderOpenAIError(error))}\n\n`);
    return;
  }
  // A JSON body cut short cannot be repaired; tear the connection down so the client sees a failure.
  logger.warn({ requestId }, 'upstream body ended early; resetting the client connection');
  res.destroy();
}

/**
 * Sends the upstream's answer on: its status and headers, then its bytes with back-pressure.
 * A stream's status and headers go out at once; a JSON answer's with its first bytes, so an
 * upstream that fails before any (silent past the time-out, or closing) still gets the client an
 * HTTP error through `fail`. Ends the client's response as the upstream's ended: complete; a
 * stream without its end (`[DONE]`, or a Responses terminal event) with an `event: error` frame
 * (naming the time-out when the upstream fell silent); a JSON body cut short by resetting the
 * connection. Calls `done` or `fail` once.
 */
function pipeAnswer({
  upstreamResponse,
  client,
  options: { endpoint, res, responseHeaders, observer, requestId },
  logger,
  done,
  fail,
  silence,
}: {
  upstreamResponse: IncomingMessage;
  client: { gone: boolean };
  options: ForwardRequestOptions;
  logger: UpstreamConnection['logger'];
  done: () => void;
  fail: (error: FleetError) => void;
  /** The time-out that ended the upstream request, if it was one. */
  silence: () => UpstreamTimeoutError | undefined;
}): void {
  const contentType = upstreamResponse.headers['content-type'] ?? '';
  const isEventStream = contentType.startsWith('text/event-stream');
  let started = false;
  const start = (): void => {
    if (started) return;
    started = true;
    res.statusCode = upstreamResponse.statusCode ?? 502;
    copyResponseHeaders(upstreamResponse.headers, res);
    for (const [name, value] of Object.entries(responseHeaders)) res.setHeader(name, value);
    if (isEventStream) res.setHeader('x-accel-buffering', 'no');
  };
  if (isEventStream) {
    start();
    // Headers normally leave with the first chunk in one write. If the upstream sent its headers
    // alone (a model still thinking), flush them so the client sees the 200 now.
    setImmediate(() => {
      if (!res.headersSent && !res.destroyed) res.flushHeaders();
    });
  }

  // One data handler instead of pipe(): it forwards each chunk with back-pressure, watches the
  // stream for its end, and feeds the observer (fewer listeners per request than pipe plus taps;
  // this is the hot path, see docs/adr/0002).
  const endCheck = isEventStream ? createStreamEndCheck(endpoint) : undefined;
  const resume = (): void => {
    upstreamResponse.resume();
  };
  upstreamResponse.on('data', (chunk: Buffer) => {
    start();
    endCheck?.push(chunk);
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
    const interrupted = broken || (endCheck !== undefined && !endCheck.ended());
    const gone = client.gone || res.destroyed;
    observer?.end(gone ? 'client-gone' : interrupted ? 'interrupted' : 'complete');
    if (gone) {
      done();
      return;
    }
    const timedOut = silence();
    if (!interrupted) {
      start();
      res.end();
    } else if (!started) {
      // Nothing of the answer went out: the client still gets a status of its own.
      fail(
        timedOut ??
          new StreamInterruptedError(
            'The upstream LLM closed the connection before sending its answer.',
          ),
      );
      return;
    } else {
      endCutOffAnswer(res, { isEventStream, timedOut, logger, requestId });
    }
    done();
  };
  upstreamResponse.once('end', () => finish(false));
  upstreamResponse.once('error', () => finish(true));
  upstreamResponse.once('close', () => finish(!upstreamResponse.complete));
}
