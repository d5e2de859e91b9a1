import type { Response } from 'express';
import { createSseWriter } from '@fleet/http';

/** Options for {@link sendSse}. */
export interface SendSseOptions {
  /**
   * Renders a failure: before the first event it is sent as a JSON reply with `status`; after it,
   * `body` becomes the data of an `event: error` frame and the response ends.
   */
  renderError: (error: unknown) => { status: number; body: unknown };
  /** Interval of the `: ping` comment that keeps proxies from closing an idle stream. @default 15000 */
  keepAliveMs?: number;
}

/**
 * Sends an async iterable as Server-Sent Events (CONTRIBUTING.md convention 18). Waits for the first event
 * before committing headers, so an early failure is a real JSON reply (what SDK clients expect,
 * docs/a2a.md §7.8); then, through `@fleet/http`'s SSE writer, `text/event-stream` with one-line
 * `data:` frames, a keep-alive comment, an `event: error` frame for a failure mid-stream, and
 * `iterator.return()` when the client goes away so the producer releases what it holds.
 *
 * @example
 * await sendSse(res, events, { renderError: (error) => ({ status: 500, body: { error: String(error) } }) });
 */
export async function sendSse(
  res: Response,
  events: AsyncIterable<unknown>,
  { renderError, keepAliveMs = 15_000 }: SendSseOptions,
): Promise<void> {
  const iterator = events[Symbol.asyncIterator]();
  const sse = createSseWriter(res, {
    keepAliveMs,
    renderError: (error) => renderError(error).body,
    onClose: () => void Promise.resolve(iterator.return?.()).catch(() => undefined),
  });
  try {
    let result: IteratorResult<unknown>;
    try {
      result = await iterator.next();
    } catch (error) {
      if (!sse.closed && !res.headersSent) {
        const { status, body } = renderError(error);
        res.status(status).json(body);
      }
      return;
    }
    if (sse.closed) return;
    sse.open({ headers: { connection: 'keep-alive' } });
    try {
      while (result.done !== true && !sse.closed) {
        // JSON.stringify never emits a raw line break, so every event is one `data:` line.
        sse.data(JSON.stringify(result.value));
        result = await iterator.next();
      }
    } catch (error) {
      sse.fail(error);
    }
  } finally {
    sse.end();
  }
}
