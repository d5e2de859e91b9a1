import type { Response } from 'express';

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
 * docs/a2a.md §7.8); then `text/event-stream` with one-line `data:` frames, a keep-alive comment, an
 * `event: error` frame for a failure mid-stream, and `iterator.return()` when the client goes away
 * so the producer releases what it holds.
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
  let clientGone = false;
  const onClose = (): void => {
    if (res.writableFinished) return;
    clientGone = true;
    void Promise.resolve(iterator.return?.()).catch(() => undefined);
  };
  res.on('close', onClose);
  let keepAlive: NodeJS.Timeout | undefined;
  try {
    let result: IteratorResult<unknown>;
    try {
      result = await iterator.next();
    } catch (error) {
      if (!clientGone && !res.headersSent) {
        const { status, body } = renderError(error);
        res.status(status).json(body);
      }
      return;
    }
    if (clientGone) return;
    res.status(200);
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache');
    res.setHeader('connection', 'keep-alive');
    res.setHeader('x-accel-buffering', 'no');
    res.flushHeaders();
    keepAlive = setInterval(() => {
      if (!clientGone) res.write(': ping\n\n');
    }, keepAliveMs);
    keepAlive.unref();
    try {
      while (result.done !== true && !clientGone) {
        // JSON.stringify never emits a raw line break, so every event is one `data:` line.
        res.write(`data: ${JSON.stringify(result.value)}\n\n`);
        result = await iterator.next();
      }
    } catch (error) {
      if (!clientGone) {
        res.write(`event: error\ndata: ${JSON.stringify(renderError(error).body)}\n\n`);
      }
    }
  } finally {
    if (keepAlive) clearInterval(keepAlive);
    res.off('close', onClose);
    if (!res.writableEnded) res.end();
  }
}
