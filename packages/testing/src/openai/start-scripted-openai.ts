import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { delay, untilAborted } from '../internal/delay';
import { tryParseJson, validateParsedJson } from '../internal/parse-json-text';
import { readBody } from '../internal/read-body';
import { listen } from '../internal/listen';
import { trackSockets } from '../internal/track-sockets';
import { Waiters } from '../internal/waiters';
import {
  chatRequestSchema,
  embeddingsRequestSchema,
  messageText,
  type ChatRequestContext,
  toChatRequestContext,
} from './chat-request';
import { embeddingToBase64, embedText } from './embed-text';
import { renderResponse, responsesAsChatRequest, responsesRequestSchema } from './render-response';
import { openAIErrorEnvelope } from './openai-error-envelope';
import {
  randomId,
  renderChatCompletion,
  roughTokenCount,
  type RenderedCompletion,
} from './render-chat-completion';
import type { ScriptedReply, ScriptedStreamError } from './scripted-reply';

/** A request the scripted server received, recorded for assertions. */
export interface RecordedRequest {
  method: string;
  /** The path without the query string, as sent (with or without `/v1`). */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or `undefined` when empty or not JSON. */
  body: unknown;
  rawBody: string;
  /** True when the client went away before the server finished its response. */
  aborted: boolean;
  /** The HTTP status the server answered with, once it did. */
  status?: number;
}

/** Chooses the reply for a chat completion request when the queue is empty. */
export type RespondFunction = (
  request: RecordedRequest,
  context: ChatRequestContext,
) => ScriptedReply | Promise<ScriptedReply>;

/** Options for {@link startScriptedOpenAI}. */
export interface ScriptedOpenAIOptions {
  /** Replies consumed in order, one per chat completion request. */
  replies?: ScriptedReply[];
  /**
   * Used when the queue is empty.
   * @default () => ({}): the echo `You said: <last user message>` (a JSON object in JSON mode)
   */
  respond?: RespondFunction;
  /**
   * Answer every chat completion (when the queue is empty) with this reply, rendered once per
   * model/stream/include_usage combination and reused: ids, `created` and usage repeat. For
   * benchmarks, where the server must not be the bottleneck. Takes precedence over `respond`.
   */
  staticReply?: ScriptedReply;
  /**
   * Keep every request in `requests`. Turn it off for long benchmark runs, where the records
   * would only grow memory; `waitForRequests` and `waitForAbort` then never resolve.
   * @default true
   */
  recordRequests?: boolean;
  /** Served by `GET /v1/models`; the first is the default model. @default ['scripted-model'] */
  models?: string[];
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
}

/** A running scripted OpenAI-compatible server. */
export interface ScriptedOpenAI {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `url + '/v1'`, what `new OpenAI({ baseURL })` takes. */
  baseURL: string;
  port: number;
  /** Every request received, in arrival order (aborted ones included). */
  requests: RecordedRequest[];
  /** Appends replies to the queue. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Resolves with all requests once at least `count` arrived. @default timeoutMs 5000 */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /**
   * Resolves with the next request whose client disconnected before the response was finished
   * (each aborted request is handed out once). @default timeoutMs 5000
   */
  waitForAbort(timeoutMs?: number): Promise<RecordedRequest>;
  /** Stops listening and destroys open sockets (hung and streaming requests included). */
  close(): Promise<void>;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

function sendJson(options: {
  response: ServerResponse;
  status: number;
  body: string;
  headers?: Record<string, string>;
}): void {
  const { response, status, body, headers } = options;
  response.writeHead(status, {
    ...JSON_HEADERS,
    'content-length': Buffer.byteLength(body),
    'x-request-id': randomId('req_'),
    ...headers,
  });
  response.end(body);
}

function sendEnvelope(options: {
  response: ServerResponse;
  status: number;
  message: string;
  param?: string;
}): void {
  const { response, status, message, param } = options;
  sendJson({
    response,
    status,
    body: JSON.stringify(openAIErrorEnvelope({ status, message, param: param ?? null })),
  });
}

/** A chat request, or a Responses request read as the chat request replies are chosen from. */
function parseChatOrResponses(api: 'chat' | 'responses', recorded: RecordedRequest) {
  const text = recorded.rawBody;
  const value = recorded.body;
  return api === 'chat'
    ? validateParsedJson({ text, value, schema: chatRequestSchema })
    : validateParsedJson({
        text,
        value,
        schema: responsesRequestSchema.transform(responsesAsChatRequest),
      });
}

/**
 * The frame of a scripted mid-stream error: `data: {"error": …}` on chat streams (as some upstreams
 * send it), an `event: error` Responses event numbered `sequence` on Responses streams.
 */
function streamErrorFrame(
  api: 'chat' | 'responses',
  streamError: ScriptedStreamError,
  sequence: number,
): string {
  const { message = 'Scripted stream error', type = 'server_error', code = null } = streamError;
  if (api === 'chat') {
    return `data: ${JSON.stringify({ error: { message, type, param: null, code } })}\n\n`;
  }
  const event = { type: 'error', message, code, param: null, sequence_number: sequence };
  return `event: error\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Renders a reply for the API it was asked through. */
function render(
  api: 'chat' | 'responses',
  { reply, context }: { reply: ScriptedReply; context: ChatRequestContext },
): RenderedCompletion {
  if (api === 'chat') return renderChatCompletion({ reply, context });
  return renderResponse({
    reply,
    model: context.model,
    stream: context.stream,
    content: reply.content ?? `You said: ${context.lastUserMessage}`,
    inputText: context.request.messages.map((message) => messageText(message.content)).join('\n'),
  });
}

/**
 * Starts an OpenAI-compatible HTTP server that answers from a script: `POST /v1/chat/completions`
 * (streaming and not, tool calls, JSON mode, errors, interruptions), `POST /v1/responses` (the
 * same replies in the Responses API's shape: text, usage, errors, interruptions, stream errors as
 * `event: error`), `POST /v1/embeddings`
 * (deterministic vectors, float and base64) and `GET /v1/models`; the same paths work without
 * `/v1`. Every request is recorded. The official `openai` SDK works against it unchanged.
 *
 * @example
 * const llm = await startScriptedOpenAI({ replies: [{ content: 'Hi there' }] });
 * const client = new OpenAI({ apiKey: 'x', baseURL: llm.baseURL });
 * await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
 * await llm.close();
 */
export async function startScriptedOpenAI({
  replies = [],
  respond = () => ({}),
  staticReply,
  recordRequests = true,
  models = ['scripted-model'],
  port = 0,
  host = '127.0.0.1',
}: ScriptedOpenAIOptions = {}): Promise<ScriptedOpenAI> {
  const queue = [...replies];
  const requests: RecordedRequest[] = [];
  const handedOutAborts = new Set<RecordedRequest>();
  const waiters = new Waiters();
  const staticCache = new Map<string, RenderedCompletion>();
  const defaultModel = models[0] ?? 'scripted-model';
  const created = Math.floor(Date.now() / 1000);
  let closing = false;

  async function handleChat(options: {
    recorded: RecordedRequest;
    response: ServerResponse;
    signal: AbortSignal;
    markCut: () => void;
    /** `responses`: a `POST /v1/responses` request, answered in the Responses API's shape. */
    api?: 'chat' | 'responses';
  }): Promise<void> {
    const { recorded, response, signal, markCut, api = 'chat' } = options;
    const parsed = parseChatOrResponses(api, recorded);
    if (!parsed.success) {
      sendEnvelope({
        response,
        status: 400,
        message: parsed.message,
        ...(parsed.param ? { param: parsed.param } : {}),
      });
      return;
    }
    const context = toChatRequestContext(parsed.value, defaultModel);
    const queued = queue.shift();
    let reply: ScriptedReply;
    let rendered: RenderedCompletion | undefined;
    if (queued) reply = queued;
    else if (staticReply) {
      reply = staticReply;
      const key = `${api}\n${context.model}\n${context.stream}\n${context.includeUsage}`;
      rendered = staticCache.get(key);
      if (!rendered) {
        rendered = render(api, { reply, context });
        staticCache.set(key, rendered);
      }
    } else reply = await respond(recorded, context);

    if (reply.latencyMs) await delay(reply.latencyMs, signal);
    if (signal.aborted) return;
    if (reply.hang) {
      await untilAborted(signal);
      return;
    }
    if (reply.error) {
      const { status, message, body, headers = {} } = reply.error;
      if (typeof body === 'string') {
        response.writeHead(status, {
          'content-type': 'text/plain; charset=utf-8',
          'content-length': Buffer.byteLength(body),
          ...headers,
        });
        response.end(body);
      } else {
        const text = JSON.stringify(
          body ?? openAIErrorEnvelope({ status, ...(message === undefined ? {} : { message }) }),
        );
        sendJson({ response, status, body: text, headers });
      }
      return;
    }
    rendered ??= render(api, { reply, context });
    // A Responses stream ends with its `response.completed` event; chat streams with `[DONE]`.
    const doneFrame = api === 'chat' ? 'data: [DONE]\n\n' : '';
    const cutAfter = reply.cutAfterChunks;
    const cut = (): void => {
      markCut();
      // end() flushes what was written, then half-closes: the client sees the connection end
      // without the chunked terminator (or short of Content-Length).
      response.socket?.end();
    };

    if (!rendered.stream) {
      if (cutAfter !== undefined) {
        response.writeHead(200, {
          ...JSON_HEADERS,
          'content-length': Buffer.byteLength(rendered.body),
        });
        response.write(rendered.body.slice(0, Math.floor(rendered.body.length / 2)));
        cut();
        return;
      }
      sendJson({ response, status: 200, body: rendered.body });
      return;
    }

    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': randomId('req_'),
    });
    response.flushHeaders();
    const { frames } = rendered;
    const chunkDelay = reply.chunkDelayMs ?? 0;
    // Past the last frame, the cut or the error replaces `[DONE]`.
    const cutAt = cutAfter === undefined ? undefined : Math.min(cutAfter, frames.length);
    const errorAt = reply.streamError
      ? Math.min(reply.streamError.afterChunks ?? 1, frames.length)
      : undefined;
    if (chunkDelay <= 0 && cutAt === undefined && errorAt === undefined) {
      response.cork();
      for (const frame of frames) response.write(frame);
      response.end(doneFrame);
      response.uncork();
      return;
    }
    for (let index = 0; index <= frames.length; index++) {
      if (index === cutAt) {
        cut();
        return;
      }
      if (index === errorAt && reply.streamError) {
        response.end(streamErrorFrame(api, reply.streamError, index));
        return;
      }
      const frame = frames[index];
      if (frame === undefined) break;
      if (index > 0 && chunkDelay > 0) {
        await delay(chunkDelay, signal);
        if (signal.aborted) return;
      }
      response.write(frame);
    }
    response.end(doneFrame);
  }

  function handleEmbeddings(recorded: RecordedRequest, response: ServerResponse): void {
    const parsed = validateParsedJson({
      text: recorded.rawBody,
      value: recorded.body,
      schema: embeddingsRequestSchema,
    });
    if (!parsed.success) {
      sendEnvelope({
        response,
        status: 400,
        message: parsed.message,
        ...(parsed.param ? { param: parsed.param } : {}),
      });
      return;
    }
    const {
      input,
      dimensions,
      encoding_format: encoding = 'float',
      model = 'scripted-embedding',
    } = parsed.value;
    let texts: string[];
    if (typeof input === 'string') texts = [input];
    else if (input.every((item) => typeof item === 'number')) texts = [input.join(' ')];
    else texts = input.map((item) => (typeof item === 'string' ? item : item.join(' ')));
    const data = texts.map((text, index) => {
      const vector = embedText({ text, ...(dimensions === undefined ? {} : { dimensions }) });
      return {
        object: 'embedding',
        index,
        embedding: encoding === 'base64' ? embeddingToBase64(vector) : vector,
      };
    });
    const promptTokens = texts.reduce((sum, text) => sum + roughTokenCount(text), 0);
    const body = {
      object: 'list',
      data,
      model,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    };
    sendJson({ response, status: 200, body: JSON.stringify(body) });
  }

  function modelObject(id: string): Record<string, unknown> {
    return { id, object: 'model', created, owned_by: 'scripted' };
  }

  async function route(options: {
    recorded: RecordedRequest;
    response: ServerResponse;
    signal: AbortSignal;
    markCut: () => void;
  }): Promise<void> {
    const { recorded, response } = options;
    const path = recorded.path.startsWith('/v1/') ? recorded.path.slice(3) : recorded.path;
    const known = (method: string): boolean => {
      if (recorded.method === method) return true;
      sendEnvelope({
        response,
        status: 405,
        message: `Method ${recorded.method} is not allowed on ${recorded.path}`,
      });
      return false;
    };
    if (path === '/chat/completions') {
      if (known('POST')) await handleChat(options);
    } else if (path === '/responses') {
      if (known('POST')) await handleChat({ ...options, api: 'responses' });
    } else if (path === '/embeddings') {
      if (known('POST')) handleEmbeddings(recorded, response);
    } else if (path === '/models') {
      if (known('GET')) {
        sendJson({
          response,
          status: 200,
          body: JSON.stringify({ object: 'list', data: models.map(modelObject) }),
        });
      }
    } else if (path.startsWith('/models/')) {
      const id = decodeURIComponent(path.slice('/models/'.length));
      if (!known('GET')) return;
      if (models.includes(id))
        sendJson({ response, status: 200, body: JSON.stringify(modelObject(id)) });
      else sendEnvelope({ response, status: 404, message: `The model '${id}' does not exist` });
    } else {
      sendEnvelope({
        response,
        status: 404,
        message: `Unknown request URL: ${recorded.method} ${recorded.path}`,
      });
    }
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const controller = new AbortController();
    let recorded: RecordedRequest | undefined;
    let cut = false;
    const method = request.method ?? 'GET';
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    response.on('close', () => {
      controller.abort();
      if (recorded && response.headersSent) recorded.status = response.statusCode;
      if (response.writableFinished || cut || closing) return;
      if (!recorded) {
        recorded = {
          method,
          path,
          headers: request.headers,
          body: undefined,
          rawBody: '',
          aborted: true,
        };
        if (recordRequests) requests.push(recorded);
      }
      recorded.aborted = true;
      waiters.notify();
    });
    const body = await readBody(request);
    if (body === undefined || controller.signal.aborted) return;
    const rawBody = body.toString('utf8');
    recorded = {
      method,
      path,
      headers: request.headers,
      body: tryParseJson(rawBody),
      rawBody,
      aborted: false,
    };
    if (recordRequests) requests.push(recorded);
    response.on('finish', () => {
      if (recorded) recorded.status = response.statusCode;
    });
    waiters.notify();
    await route({ recorded, response, signal: controller.signal, markCut: () => (cut = true) });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) response.destroy();
      else {
        const message = error instanceof Error ? error.message : String(error);
        sendEnvelope({ response, status: 500, message: `Scripted server failed: ${message}` });
      }
    });
  });
  const closeServer = trackSockets(server);
  const { url, port: boundPort } = await listen(server, { port, host });

  return {
    url,
    baseURL: `${url}/v1`,
    port: boundPort,
    requests,
    enqueue(...more) {
      queue.push(...more);
    },
    waitForRequests(count, timeoutMs = 5000) {
      return waiters.waitFor({
        produce: () => (requests.length >= count ? [...requests] : undefined),
        timeoutMs,
        describe: () => `expected ${count} requests, got ${requests.length}`,
      });
    },
    waitForAbort(timeoutMs = 5000) {
      return waiters.waitFor({
        produce: () => {
          const found = requests.find(
            (request) => request.aborted && !handedOutAborts.has(request),
          );
          if (found) handedOutAborts.add(found);
          return found;
        },
        timeoutMs,
        describe: () => `no aborted request among ${requests.length}`,
      });
    },
    async close() {
      closing = true;
      waiters.rejectAll(new Error('The scripted OpenAI server was closed'));
      await closeServer();
    },
  };
}
