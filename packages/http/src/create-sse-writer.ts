import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { renderErrorBody } from './error-middleware';
import { getRequestId } from './request-id';

/** Options for {@link createSseWriter}. */
export interface SseWriterOptions {
  /**
   * Interval of the keep-alive comment that keeps proxies from closing a quiet stream, from
   * {@link SseWriter.open} to {@link SseWriter.end}; 0 sends none. @default 15000
   */
  keepAliveMs?: number;
  /** The keep-alive comment's text (`: <text>`). @default 'ping' */
  keepAliveComment?: string;
  /**
   * Called once when the client goes away before the response ended, e.g. to stop the producer
   * (`iterator.return()`) so it releases what it holds. Watched from creation, before `open()`.
   */
  onClose?: () => void;
  /**
   * Renders a failure as the data of the `event: error` frame {@link SseWriter.fail} sends.
   * @default the fleet's error body ({@link renderErrorBody}, with the request id)
   */
  renderError?: (error: unknown) => unknown;
}

/** Options for {@link SseWriter.open}. */
export interface SseOpenOptions {
  /** @default 200 */
  status?: number;
  /** Headers the stream carries besides the SSE ones (set first). */
  headers?: OutgoingHttpHeaders;
  /**
   * The body is another SSE server's, passed through byte for byte with the headers copied from
   * it: its `content-type` and `cache-control` are kept, no keep-alive is added (a comment could
   * land inside one of its frames), and the headers leave with its first bytes — or on the next
   * turn of the event loop when none come in this one — instead of in a write of their own.
   * @default false
   */
  passthrough?: boolean;
}

/** One `text/event-stream` response, written frame by frame. */
export interface SseWriter {
  /** True once {@link SseWriter.open} committed the headers. */
  readonly opened: boolean;
  /** True when the client went away before the response ended (until {@link SseWriter.release}). */
  readonly closed: boolean;
  /**
   * Commits the status and headers (`text/event-stream`, `no-cache`, `X-Accel-Buffering: no`),
   * flushes them and starts the keep-alive. Idempotent; does nothing once the client is gone.
   * Call it once the first event is in hand, so an earlier failure can still be answered with a
   * real status.
   */
  open(options?: SseOpenOptions): void;
  /** Writes one `data:` frame (one `data:` line per line of `data`), opening first if needed. */
  data(data: string): void;
  /** Writes one `event: <name>` frame with its `data:` lines, opening first if needed. */
  event(name: string, data: string): void;
  /** Writes a comment (`: <text>`), which readers skip. */
  comment(text: string): void;
  /** Ends a stream that failed after it started: an `event: error` frame with the rendered error, then {@link SseWriter.end}. */
  fail(error: unknown): void;
  /** Releases the writer and ends the response (once). */
  end(): void;
  /**
   * Stops the keep-alive and stops watching the client, without ending the response: for a
   * caller that ends it itself (a JSON answer, or an error thrown to the error middleware).
   */
  release(): void;
}

const SSE_CONTENT_TYPE = 'text/event-stream; charset=utf-8';

/** The `data:` lines of a frame: a line break in the data starts a new line (the SSE spec's way). */
function dataLines(data: string): string {
  return data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
}

/** Sets a stream's status and the caller's headers (those with a value). */
function setStatusAndHeaders(
  res: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders,
): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) res.setHeader(name, value);
  }
}

/**
 * A passed-through stream's headers: unbuffered by proxies, and leaving with its first bytes, or
 * on the next turn of the event loop when none come in this one.
 */
function flushHeadersSoon(res: ServerResponse): void {
  res.setHeader('x-accel-buffering', 'no');
  setImmediate(() => {
    if (!res.headersSent && !res.destroyed) res.flushHeaders();
  });
}

/**
 * Frames written in one turn of the event loop leave in one socket write: the returned function
 * corks the socket at the first and uncorks it on the next turn. A fast agent's task, status and
 * artifact frames (and the headers before them) then cost one write instead of one each; on
 * loopback in a VM a write is the largest part of serving a small call (docs/benchmarks.md).
 */
function createWriteCoalescer(res: ServerResponse): () => void {
  let corked: Socket | undefined;
  return (): void => {
    const socket = res.socket;
    if (corked !== undefined || socket === null || socket.destroyed) return;
    corked = socket;
    socket.cork();
    setImmediate(() => {
      corked = undefined;
      socket.uncork();
    });
  };
}

/**
 * The one Server-Sent Events writer of the fleet (CONTRIBUTING.md convention 18): the headers,
 * one-line `data:` frames, `event:` frames, keep-alive comments, the `event: error` frame of a
 * failure mid-stream, ending once, and a client that went away (writes stop, `onClose` is
 * called). What the frames carry — JSON-RPC responses, OpenAI chunks and `[DONE]` — is the
 * caller's. Works on plain `node:http` responses as well as express's.
 *
 * @example
 * const sse = createSseWriter(res, { onClose: () => void iterator.return?.() });
 * sse.open();
 * sse.data(JSON.stringify(event));
 * sse.end();
 */
export function createSseWriter(
  res: ServerResponse,
  {
    keepAliveMs = 15_000,
    keepAliveComment = 'ping',
    onClose,
    renderError = (error) => renderErrorBody(error, { requestId: getRequestId(res) }),
  }: SseWriterOptions = {},
): SseWriter {
  let opened = false;
  let closed = false;
  let released = false;
  let keepAlive: NodeJS.Timeout | undefined;

  const onResponseClose = (): void => {
    if (res.writableFinished) return;
    closed = true;
    onClose?.();
  };
  res.on('close', onResponseClose);

  const coalesce = createWriteCoalescer(res);

  const write = (text: string): void => {
    if (closed || res.writableEnded) return;
    coalesce();
    res.write(text);
  };

  const writer: SseWriter = {
    get opened() {
      return opened;
    },
    get closed() {
      return closed;
    },
    open({ status = 200, headers = {}, passthrough = false } = {}) {
      if (opened || closed) return;
      opened = true;
      setStatusAndHeaders(res, status, headers);
      if (passthrough) {
        flushHeadersSoon(res);
        return;
      }
      res.setHeader('content-type', SSE_CONTENT_TYPE);
      res.setHeader('cache-control', 'no-cache');
      res.setHeader('x-accel-buffering', 'no');
      coalesce();
      res.flushHeaders();
      if (keepAliveMs > 0 && !released) {
        keepAlive = setInterval(() => writer.comment(keepAliveComment), keepAliveMs);
        keepAlive.unref();
      }
    },
    data(data) {
      writer.open();
      write(`${dataLines(data)}\n`);
    },
    event(name, data) {
      writer.open();
      write(`event: ${name}\n${dataLines(data)}\n`);
    },
    comment(text) {
      write(`: ${text}\n\n`);
    },
    fail(error) {
      if (!closed && !res.writableEnded) writer.event('error', JSON.stringify(renderError(error)));
      writer.end();
    },
    end() {
      writer.release();
      if (!res.writableEnded) res.end();
    },
    release() {
      released = true;
      clearInterval(keepAlive);
      keepAlive = undefined;
      res.off('close', onResponseClose);
    },
  };
  return writer;
}
