import { createParser, type EventSourceMessage } from 'eventsource-parser';
import {
  AbortError,
  fromErrorBody,
  safeParseJson,
  StreamInterruptedError,
  UpstreamTimeoutError,
  type FleetError,
} from '@fleet/errors';
import { z } from 'zod';
import { fromJsonRpcError } from '../errors/json-rpc-error';
import { jsonRpcErrorResponseSchema } from '../schemas/json-rpc';

/** One Server-Sent Event. */
export interface SseEvent {
  /** The `event:` field; undefined for the default `message`. */
  event: string | undefined;
  data: string;
  id: string | undefined;
}

/**
 * True for the error {@link parseSseStream} throws when an event is larger than its
 * `maxEventBytes` (a `StreamInterruptedError` whose `details.oversizedEvent` is true): the stream
 * was cut on purpose, and reading the same answer again would only be cut again.
 */
export function isOversizedSseEvent(error: unknown): boolean {
  return error instanceof StreamInterruptedError && error.details?.['oversizedEvent'] === true;
}

/** Options for {@link parseSseStream}. */
export interface ParseSseStreamOptions {
  /** Largest event (and line) accepted, in bytes: a bound against memory exhaustion. @default 4 MiB */
  maxEventBytes?: number;
  /** Aborted when the iteration ends early (break, error, timeout), which cancels the request. */
  controller?: AbortController | undefined;
  /** Fails with `UpstreamTimeoutError` when nothing (not even a keep-alive) arrives for this long. */
  idleTimeoutMs?: number | undefined;
  /** The caller's signal: its abort ends the iteration with `AbortError`. */
  signal?: AbortSignal | undefined;
}

const DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024;

/** Builds the typed error an `event: error` frame carries (JSON-RPC or fleet error body). */
function errorFromFrame(data: string): FleetError {
  const parsed = safeParseJson({ text: data, schema: z.unknown(), subject: 'An SSE error event' });
  if (parsed.success) {
    const rpc = jsonRpcErrorResponseSchema.safeParse(parsed.value);
    if (rpc.success) return fromJsonRpcError(rpc.data.error);
    const fleet = fromErrorBody(502, parsed.value);
    if (fleet.code !== 'UPSTREAM_ERROR') return fleet;
  }
  return new StreamInterruptedError(`The stream reported an error: ${data.slice(0, 200)}`);
}

/**
 * Reads a `text/event-stream` response as an async iterator of events (CONTRIBUTING.md convention 19), on
 * eventsource-parser. Comments (keep-alives) are skipped; `event: error` is thrown as the typed
 * error it carries. Leaving the loop early (`break`, a throw) aborts `controller`, which cancels
 * the HTTP request.
 *
 * @example
 * for await (const event of parseSseStream(response, { controller })) console.log(event.data);
 */
export async function* parseSseStream(
  response: Response,
  {
    maxEventBytes = DEFAULT_MAX_EVENT_BYTES,
    controller,
    idleTimeoutMs,
    signal,
  }: ParseSseStreamOptions = {},
): AsyncGenerator<SseEvent, void, undefined> {
  if (response.body === null) {
    throw new StreamInterruptedError('The event stream response has no body.');
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const pending: EventSourceMessage[] = [];
  let parseFailure: FleetError | undefined;
  const parser = createParser({
    maxBufferSize: maxEventBytes,
    onEvent: (message) => pending.push(message),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') {
        parseFailure = new StreamInterruptedError(
          `An SSE event is larger than ${maxEventBytes} bytes.`,
          { cause: error, details: { oversizedEvent: true, maxEventBytes } },
        );
      }
    },
  });
  let idleTimedOut = false;
  let completed = false;

  type ReadResult = Awaited<ReturnType<typeof reader.read>>;
  const read = (): Promise<ReadResult> => {
    if (idleTimeoutMs === undefined) return reader.read();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        idleTimedOut = true;
        reject(
          new UpstreamTimeoutError(
            `No event, not even a keep-alive, arrived for ${idleTimeoutMs} ms.`,
          ),
        );
      }, idleTimeoutMs);
    });
    return Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
  };

  function* drain(): Generator<SseEvent, void, undefined> {
    if (parseFailure) throw parseFailure;
    while (pending.length > 0) {
      const message = pending.shift();
      if (message === undefined) break;
      if (Buffer.byteLength(message.data) > maxEventBytes) {
        throw new StreamInterruptedError(`An SSE event is larger than ${maxEventBytes} bytes.`, {
          details: { oversizedEvent: true, maxEventBytes },
        });
      }
      if (message.event === 'error') throw errorFromFrame(message.data);
      yield { event: message.event, data: message.data, id: message.id };
    }
  }

  try {
    for (;;) {
      let chunk: ReadResult;
      try {
        chunk = await read();
      } catch (error) {
        if (idleTimedOut) throw error;
        if (signal?.aborted) throw new AbortError(undefined, { cause: error });
        if ((error as { name?: unknown } | undefined)?.name === 'TimeoutError') {
          throw new UpstreamTimeoutError('The stream timed out.', { cause: error });
        }
        throw new StreamInterruptedError('The event stream was cut off.', { cause: error });
      }
      if (chunk.done) break;
      parser.feed(decoder.decode(chunk.value as Uint8Array, { stream: true }));
      yield* drain();
    }
    parser.feed(decoder.decode());
    // A last event without its blank line still counts.
    parser.feed('\n\n');
    yield* drain();
    completed = true;
  } finally {
    if (!completed) controller?.abort();
    await reader.cancel().catch(() => undefined);
    try {
      reader.releaseLock();
    } catch {
      // A read still pending after a timeout; the cancel above already ended it.
    }
  }
}
