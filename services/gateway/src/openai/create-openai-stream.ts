import type { ServerResponse } from 'node:http';
import { createSseWriter, renderErrorBody, type SseWriter } from '@fleet/http';

const DONE_DATA = '[DONE]';

/** The frame that ends a complete OpenAI stream; a stream without it was cut off. */
export const DONE_FRAME = `data: ${DONE_DATA}`;

/**
 * The gateway's error body, `{ error: { message, type, param, code } }`: the same rendering as the
 * error middleware's JSON answers (`renderErrorBody`, OpenAI format), so an error after a stream
 * started carries exactly the body it would have had before.
 */
export function renderOpenAIError(error: unknown): unknown {
  return renderErrorBody(error, { format: 'openai' });
}

/** Options for {@link createOpenAIStream}. */
export interface OpenAIStreamOptions {
  /** Keep-alive comment interval while the answer is quiet; 0 sends none. @default 15000 */
  keepAliveMs?: number;
  /** Called once when the client goes away before the answer ended. */
  onClose?: () => void;
}

/** An OpenAI `chat.completion.chunk` stream: the SSE writer plus OpenAI's `[DONE]` ending. */
export interface OpenAIStream extends SseWriter {
  /** Ends a complete answer: `data: [DONE]`, then the end of the response. */
  done(): void;
}

/**
 * The gateway's streaming answers, on `@fleet/http`'s SSE writer: `: keep-alive` comments, a
 * failure mid-stream as an `event: error` frame with {@link renderOpenAIError}'s body (what OpenAI
 * SDKs raise as an APIError), and `[DONE]` only for a complete answer.
 *
 * @example
 * const sse = createOpenAIStream(res, { onClose: () => abort.abort() });
 * sse.open({ headers: responseHeaders });
 * sse.data(JSON.stringify(chunk));
 * sse.done();
 */
export function createOpenAIStream(
  res: ServerResponse,
  { keepAliveMs = 15_000, onClose }: OpenAIStreamOptions = {},
): OpenAIStream {
  const sse = createSseWriter(res, {
    keepAliveMs,
    keepAliveComment: 'keep-alive',
    renderError: renderOpenAIError,
    ...(onClose === undefined ? {} : { onClose }),
  });
  return Object.assign(sse, {
    done(): void {
      sse.data(DONE_DATA);
      sse.end();
    },
  });
}
