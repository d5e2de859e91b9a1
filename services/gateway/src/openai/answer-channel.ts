import type { ServerResponse } from 'node:http';
import type { SseOpenOptions } from '@fleet/http';
import { createOpenAIStream, type OpenAIStreamOptions } from './create-openai-stream';
import { sendJsonAnswer } from './send-json-answer';

/** Token usage in chat completions' shape, as the agent routes report it. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * What an agent route's answer is built from, in chat completions' terms: a `chat.completion.chunk`
 * (progress as `reasoning_content`, answer text as `content`, the `fleet` object, a last chunk
 * with `usage`). Structural, so the routes' own chunk types fit.
 */
export interface ChatChunkLike {
  id?: string;
  object?: string;
  created?: number;
  model?: string;
  choices: readonly {
    delta: { content?: string; reasoning_content?: string };
    finish_reason: string | null;
  }[];
  fleet?: Record<string, unknown>;
  usage?: ChatUsage | null;
}

/** A whole, non-streamed agent answer in chat completions' terms (a `chat.completion`). */
export interface ChatCompletionLike {
  choices: readonly { message: { content: string; reasoning_content: string } }[];
  fleet?: Record<string, unknown>;
  usage?: ChatUsage | undefined;
}

/**
 * Where an agent route (orchestration, reasoning) writes its answer: streamed chunk by chunk, or
 * whole. The routes speak chat completions; a channel renders that in the API the client called
 * (`chat.completion.chunk` SSE for `/v1/chat/completions`, Responses events for `/v1/responses`).
 * Streams follow the SSE writer contract (CONTRIBUTING.md convention 18).
 */
export interface AnswerChannel {
  /** True once the stream's headers were sent. */
  readonly opened: boolean;
  /** Commits the stream's status and headers (idempotent). */
  open(options: SseOpenOptions): void;
  /** One piece of a streamed answer, opening the stream first if needed. */
  chunk(chunk: ChatChunkLike): void;
  /** Ends a complete streamed answer. */
  done(): void;
  /** Ends a stream that failed after it started with an error event, never a clean end. */
  fail(error: unknown): void;
  /** Stops the keep-alive and watching the client; call in `finally`. */
  release(): void;
  /** Sends a whole answer as JSON (no stream). */
  json(answer: { headers: Record<string, string>; completion: ChatCompletionLike }): void;
}

/** Makes the channel for one answer; `options` are the SSE writer's (keep-alive, client gone). */
export type AnswerChannelFactory = (
  res: ServerResponse,
  options: OpenAIStreamOptions,
) => AnswerChannel;

/**
 * The chat completions channel: chunks as `data:` frames ending with `[DONE]`
 * ({@link createOpenAIStream}), the whole answer as the `chat.completion` it is.
 *
 * @example
 * const channel = chatAnswerChannel(res, { onClose: () => abort.abort() });
 * channel.chunk(writer.progress('Planning…'));
 * channel.done();
 */
export const chatAnswerChannel: AnswerChannelFactory = (res, options) => {
  const sse = createOpenAIStream(res, options);
  return {
    get opened() {
      return sse.opened;
    },
    open: (openOptions) => sse.open(openOptions),
    chunk: (chunk) => sse.data(JSON.stringify(chunk)),
    done: () => sse.done(),
    fail: (error) => sse.fail(error),
    release: () => sse.release(),
    json: ({ headers, completion }) =>
      sendJsonAnswer(res, { headers, body: JSON.stringify(completion) }),
  };
};
