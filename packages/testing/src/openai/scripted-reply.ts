/** A tool call the scripted assistant makes. */
export interface ScriptedToolCall {
  /** @default a random `call_…` id */
  id?: string;
  name: string;
  /** A JSON string, or an object that is serialised. */
  arguments: string | Record<string, unknown>;
}

/** An HTTP error the scripted server answers with instead of a completion. */
export interface ScriptedError {
  status: number;
  /** The error message in the default OpenAI envelope. */
  message?: string;
  /** The body to send instead of the envelope: a string is sent as-is (`text/plain`), anything else as JSON. */
  body?: unknown;
  /** Extra response headers, e.g. `{ 'retry-after': '1' }`. */
  headers?: Record<string, string>;
}

/** An error event sent in the middle of a stream (`data: {"error": …}`), as some upstreams do. */
export interface ScriptedStreamError {
  /** Data chunks sent before the error. @default 1 */
  afterChunks?: number;
  /** @default 'Scripted stream error' */
  message?: string;
  /** @default 'server_error' */
  type?: string;
  /** @default null */
  code?: string | null;
}

/**
 * One scripted answer to a chat completion request. Everything is optional: a reply with no
 * `content`, `json` or `toolCalls` answers with the default text (`You said: <last user message>`,
 * or a JSON object in JSON mode).
 */
export interface ScriptedReply {
  /** The assistant text. */
  content?: string;
  /** Reasoning text, sent as `delta.reasoning_content` (stream) / `message.reasoning_content`, as DeepSeek-style upstreams do. */
  reasoningContent?: string;
  /** Tool calls; with no content the message content is `null`. */
  toolCalls?: ScriptedToolCall[];
  /** JSON-mode answer: serialised into `content`. */
  json?: unknown;
  /** Token usage; `false` leaves usage out. @default a rough count (about 4 characters a token) */
  usage?: { prompt_tokens: number; completion_tokens: number } | false;
  /** @default 'tool_calls' when there are tool calls, else 'stop' */
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  /** @default the request's model */
  model?: string;
  /** Delay before the response headers. */
  latencyMs?: number;
  /** Delay between streamed chunks. @default 0 */
  chunkDelayMs?: number;
  /** Characters per streamed content (and tool-argument) delta. @default word-sized pieces */
  chunkSize?: number;
  /** Split the content (and reasoning) into exactly this many streamed deltas; wins over `chunkSize`. */
  chunkCount?: number;
  /** Answer with this HTTP error instead. */
  error?: ScriptedError;
  /** Streaming: send an error event after some chunks, then end the response (no `[DONE]`). */
  streamError?: ScriptedStreamError;
  /**
   * Send this many data chunks, then close the socket without `[DONE]` or the chunked-encoding
   * terminator. Non-streaming: send the headers and half the body, then close.
   */
  cutAfterChunks?: number;
  /** Never answer; the request stays open until the client aborts or the server closes. */
  hang?: boolean;
}
