import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  AbortError,
  BadRequestError,
  FleetError,
  fromErrorBody,
  safeParseJson,
  StreamInterruptedError,
  UpstreamTimeoutError,
} from '@fleet/errors';
import { sharedBalancedFetch } from '@fleet/http';
import { InvalidAgentResponseError } from '../errors/a2a-errors';
import { fromJsonRpcError } from '../errors/json-rpc-error';
import type { AgentCard } from '../schemas/agent-card';
import {
  A2A_VERSION,
  type Message,
  streamResponseSchema,
  type StreamResponse,
  type Task,
  taskSchema,
} from '../schemas/core';
import { isInterruptedState, isTerminalState } from '../schemas/helpers';
import { jsonRpcResponseSchema, type JsonRpcId } from '../schemas/json-rpc';
import {
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTasksRequest,
  type ListTasksResponse,
  listTasksResponseSchema,
  type SendMessageRequest,
  sendMessageResponseSchema,
  type SubscribeToTaskRequest,
} from '../schemas/methods';
import { connectionError, withRetries, withRetryAfter } from './internal/retry';
import { parseSseStream } from './parse-sse-stream';

/** Options shared by {@link A2AClient} and {@link discoverAgentCard}. */
export interface A2AClientOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string | undefined;
  /**
   * Per call: the time to the response (unary calls: to the whole body); for streams, the time to
   * the response's headers, then the longest silence between two chunks (keep-alives count, so a
   * stream that keeps sending them lasts as long as its task). @default 60000
   */
  timeoutMs?: number | undefined;
  /** Retries of idempotent reads, and of any call whose connection failed before sending. @default 2 */
  maxRetries?: number | undefined;
  /** Extra headers on every request. */
  headers?: Record<string, string> | undefined;
  /**
   * The fetch to use. @default the process's shared balanced fetch (`@fleet/http`): calls to a
   * name that several replicas answer go to each in turn, per request (the global fetch
   * underneath, traced by the OTel undici instrumentation)
   */
  fetch?: typeof fetch | undefined;
  /**
   * Largest Server-Sent Event a stream may carry, in bytes (a bound on memory: a bigger event
   * cuts the stream with a `StreamInterruptedError`, see `isOversizedSseEvent`). @default 4 MiB
   */
  maxEventBytes?: number | undefined;
}

/** Where the client sends its calls: a card, or the JSON-RPC endpoint itself. */
export type A2AClientTarget = { card: AgentCard } | { url: string };

/** Per-call options. */
export interface A2ACallOptions {
  signal?: AbortSignal | undefined;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number | undefined;
}

/** Params of `sendMessage` and `sendStreamingMessage`. */
export type SendMessageParams = Omit<SendMessageRequest, 'configuration'> & {
  configuration?: SendMessageRequest['configuration'];
};

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Picks the JSON-RPC interface speaking A2A 1.0 from a card (docs/a2a.md §2: interfaces are listed in
 * preference order; `card.url` is gone in v1.0).
 *
 * @throws BadRequestError when the card offers none.
 */
export function selectJsonRpcUrl(card: AgentCard): string {
  const jsonRpc = card.supportedInterfaces.filter(
    (entry) => entry.protocolBinding.toUpperCase() === 'JSONRPC',
  );
  const chosen =
    jsonRpc.find((entry) => entry.protocolVersion === A2A_VERSION) ??
    jsonRpc.find((entry) => entry.protocolVersion === '' || entry.protocolVersion.startsWith('1.'));
  if (chosen === undefined) {
    throw new BadRequestError(
      `Agent ${card.name} offers no JSON-RPC interface for A2A ${A2A_VERSION} (found: ${
        card.supportedInterfaces
          .map((entry) => `${entry.protocolBinding} ${entry.protocolVersion}`)
          .join(', ') || 'none'
      }).`,
    );
  }
  return chosen.url;
}

function headersRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, key) => {
    record[key] = value;
  });
  return record;
}

/**
 * One SSE event's data as the stream event it carries: a JSON-RPC success answering request `id`
 * with an A2A 1.0 `StreamResponse`. A JSON-RPC error is thrown as its typed error (convention 13).
 */
function streamEvent(
  data: string,
  { id, status }: { id: JsonRpcId; status: number },
): StreamResponse {
  const parsed = safeParseJson({
    text: data,
    schema: jsonRpcResponseSchema,
    subject: 'An SSE event',
  });
  if (!parsed.success) {
    throw new InvalidAgentResponseError('An SSE event is not a JSON-RPC response.', {
      cause: parsed.error,
    });
  }
  const envelope = parsed.value;
  if ('error' in envelope) throw fromJsonRpcError(envelope.error, { status });
  if (envelope.id !== id) {
    throw new InvalidAgentResponseError(
      `An SSE event answers request ${String(envelope.id)}, not ${String(id)}.`,
    );
  }
  const event = streamResponseSchema.safeParse(envelope.result);
  if (!event.success) {
    throw new InvalidAgentResponseError('An SSE event is not an A2A 1.0 StreamResponse.', {
      cause: event.error,
    });
  }
  return event.data;
}

/** True when this stream event ends the turn the call is waiting for. */
function endsTurn(
  event: StreamResponse,
  { first, continuedTaskId }: { first: boolean; continuedTaskId: string | undefined },
): boolean {
  if ('message' in event) return true;
  if ('statusUpdate' in event) {
    const { state } = event.statusUpdate.status;
    return isTerminalState(state) || isInterruptedState(state);
  }
  if ('task' in event) {
    const { state } = event.task.status;
    if (isTerminalState(state)) return true;
    // Continuing a task, the first event is that task, still in its interrupted state on some
    // servers (the SDK's): the new turn has only begun.
    return (
      isInterruptedState(state) &&
      !(first && continuedTaskId !== undefined && continuedTaskId === event.task.id)
    );
  }
  return false;
}

/**
 * An A2A v1.0 JSON-RPC client (docs/a2a.md §1, §4, §7): `A2A-Version: 1.0` on every call, the bearer
 * token when given, typed errors rebuilt from JSON-RPC errors (CONTRIBUTING.md convention 13), a timeout per
 * call, retries for reads (CONTRIBUTING.md convention 14), and streams that stop reading at a terminal or interrupted
 * state instead of waiting for the server to close (§7.6). Uses the global fetch, so the undici
 * instrumentation propagates the trace.
 *
 * @example
 * const client = new A2AClient({ card: await discoverAgentCard(url, { token }), token });
 * for await (const event of client.sendStreamingMessage({ message: createMessage({ parts: 'hi' }) })) {
 *   if ('artifactUpdate' in event) console.log(event.artifactUpdate.artifact.parts);
 * }
 */
export class A2AClient {
  /** The JSON-RPC endpoint. */
  readonly url: string;
  /** The card, when the client was built from one. */
  readonly card: AgentCard | undefined;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly headers: Record<string, string>;
  private readonly fetchImpl: typeof fetch | undefined;
  private readonly maxEventBytes: number | undefined;
  private nextId = 1;

  constructor(options: A2AClientTarget & A2AClientOptions) {
    this.card = 'card' in options ? options.card : undefined;
    this.url = 'card' in options ? selectJsonRpcUrl(options.card) : options.url;
    this.token = options.token;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxEventBytes = options.maxEventBytes;
    this.maxRetries = options.maxRetries ?? 2;
    this.headers = options.headers ?? {};
    this.fetchImpl = options.fetch;
  }

  /**
   * `SendMessage`: by default blocks until the task is terminal or interrupted
   * (`configuration.returnImmediately: true` returns the submitted task). Returns the task, or the
   * agent's direct message.
   */
  async sendMessage(
    params: SendMessageParams,
    options: A2ACallOptions = {},
  ): Promise<Task | Message> {
    const result = await this.call({
      method: 'SendMessage',
      params,
      schema: sendMessageResponseSchema,
      idempotent: false,
      options,
    });
    return 'task' in result ? result.task : result.message;
  }

  /**
   * `SendStreamingMessage`: the task first, then its status and artifact updates. The iteration
   * ends after a terminal or interrupted state (or a direct message); `break` aborts the request.
   *
   * @throws StreamInterruptedError when the stream ends before that (recover with `getTask` or
   *   `subscribeToTask`).
   */
  sendStreamingMessage(
    params: SendMessageParams,
    options: A2ACallOptions = {},
  ): AsyncGenerator<StreamResponse, void, undefined> {
    return this.stream({
      method: 'SendStreamingMessage',
      params,
      continuedTaskId: params.message.taskId || undefined,
      options,
    });
  }

  /** `GetTask` (`historyLength`: unset for all, 0 for none, n for the last n messages). */
  getTask(params: GetTaskRequest, options: A2ACallOptions = {}): Promise<Task> {
    return this.call({ method: 'GetTask', params, schema: taskSchema, idempotent: true, options });
  }

  /** `ListTasks`, newest first. */
  listTasks(
    params: ListTasksRequest = {},
    options: A2ACallOptions = {},
  ): Promise<ListTasksResponse> {
    return this.call({
      method: 'ListTasks',
      params,
      schema: listTasksResponseSchema,
      idempotent: true,
      options,
    });
  }

  /** `CancelTask`: the task, canceled. A terminal task fails with `TaskNotCancelableError`. */
  cancelTask(params: CancelTaskRequest, options: A2ACallOptions = {}): Promise<Task> {
    return this.call({
      method: 'CancelTask',
      params,
      schema: taskSchema,
      idempotent: false,
      options,
    });
  }

  /**
   * `SubscribeToTask`: the current task first, then its events until a terminal or interrupted
   * state. A terminal task fails with `UnsupportedOperationError`.
   */
  subscribeToTask(
    params: SubscribeToTaskRequest,
    options: A2ACallOptions = {},
  ): AsyncGenerator<StreamResponse, void, undefined> {
    return this.stream({ method: 'SubscribeToTask', params, continuedTaskId: undefined, options });
  }

  private requestHeaders(accept: string, idempotencyKey: string): Record<string, string> {
    return {
      ...this.headers,
      'content-type': 'application/json',
      accept,
      'a2a-version': A2A_VERSION,
      'idempotency-key': idempotencyKey,
      ...(this.token === undefined ? {} : { authorization: `Bearer ${this.token}` }),
    };
  }

  /** One POST. Fails with typed errors: connection, timeout, abort, or the peer's HTTP error. */
  private async post({
    body,
    accept,
    idempotencyKey,
    signal,
  }: {
    body: string;
    accept: string;
    idempotencyKey: string;
    signal: AbortSignal;
  }): Promise<Response> {
    const fetchImpl = this.fetchImpl ?? sharedBalancedFetch().fetch;
    try {
      return await fetchImpl(this.url, {
        method: 'POST',
        headers: this.requestHeaders(accept, idempotencyKey),
        body,
        signal,
      });
    } catch (error) {
      throw this.failureOf(error, signal);
    }
  }

  private failureOf(error: unknown, signal: AbortSignal): FleetError {
    if (FleetError.isInstance(error)) return error;
    if (signal.aborted) {
      // By name: DOMException and Error may come from another realm (undici, test sandboxes).
      const reason = signal.reason as { name?: unknown } | undefined;
      return reason?.name === 'TimeoutError'
        ? new UpstreamTimeoutError(`The agent at ${this.url} did not answer in time.`, {
            cause: error,
          })
        : new AbortError(undefined, { cause: error });
    }
    return connectionError(error, this.url);
  }

  /** Reads a non-SSE reply: a JSON-RPC response (result or error), or an HTTP error. */
  private async readJson(
    response: Response,
    { id, signal }: { id: JsonRpcId; signal: AbortSignal },
  ): Promise<unknown> {
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw this.failureOf(error, signal);
    }
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const parsed = safeParseJson({ text, schema: z.unknown(), subject: 'The agent response' });
    const rpc = parsed.success ? jsonRpcResponseSchema.safeParse(parsed.value) : undefined;
    if (rpc?.success) {
      if ('error' in rpc.data) {
        throw withRetryAfter(
          fromJsonRpcError(rpc.data.error, { status: response.status, requestId }),
          response.headers,
        );
      }
      if (rpc.data.id !== id) {
        throw new InvalidAgentResponseError(
          `The agent answered request ${String(id)} with the id ${String(rpc.data.id)}.`,
        );
      }
      if (!response.ok) {
        throw new InvalidAgentResponseError(
          `The agent answered HTTP ${response.status} with a result.`,
        );
      }
      return rpc.data.result;
    }
    if (!response.ok) {
      throw withRetryAfter(
        fromErrorBody(
          response.status,
          parsed.success ? parsed.value : text,
          headersRecord(response.headers),
        ),
        response.headers,
      );
    }
    throw new InvalidAgentResponseError('The agent did not answer with a JSON-RPC response.', {
      details: { body: text.slice(0, 200) },
    });
  }

  private timeoutSignal(options: A2ACallOptions): AbortSignal {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs);
    return options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  }

  private async call<TSchema extends z.ZodType>({
    method,
    params,
    schema,
    idempotent,
    options,
  }: {
    method: string;
    params: unknown;
    schema: TSchema;
    idempotent: boolean;
    options: A2ACallOptions;
  }): Promise<z.output<TSchema>> {
    const idempotencyKey = randomUUID();
    return withRetries(
      async () => {
        const id = this.nextId++;
        const signal = this.timeoutSignal(options);
        const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
        const response = await this.post({
          body,
          accept: 'application/json',
          idempotencyKey,
          signal,
        });
        const result = await this.readJson(response, { id, signal });
        const parsed = schema.safeParse(result);
        if (!parsed.success) {
          throw new InvalidAgentResponseError(
            `The agent's ${method} result is not valid A2A 1.0.`,
            {
              cause: parsed.error,
            },
          );
        }
        return parsed.data;
      },
      { maxRetries: this.maxRetries, idempotent, signal: options.signal },
    );
  }

  private async *stream({
    method,
    params,
    continuedTaskId,
    options,
  }: {
    method: string;
    params: unknown;
    continuedTaskId: string | undefined;
    options: A2ACallOptions;
  }): AsyncGenerator<StreamResponse, void, undefined> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const controller = new AbortController();
    const signal = options.signal
      ? AbortSignal.any([options.signal, controller.signal])
      : controller.signal;
    const id = this.nextId++;
    const idempotencyKey = randomUUID();
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    // Only a connection that failed before sending is retried: a started stream is never replayed.
    const response = await withRetries(
      async () => {
        // The time to the response's headers only. fetch keeps its signal on the body too, so an
        // `AbortSignal.timeout` here would end the whole stream after `timeoutMs` however many
        // keep-alives came; past the headers, the idle limit of `parseSseStream` applies alone.
        const connect = new AbortController();
        const timer = setTimeout(
          () =>
            connect.abort(new DOMException('The agent did not answer in time.', 'TimeoutError')),
          timeoutMs,
        );
        try {
          return await this.post({
            body,
            accept: 'text/event-stream',
            idempotencyKey,
            signal: AbortSignal.any([signal, connect.signal]),
          });
        } finally {
          clearTimeout(timer);
        }
      },
      { maxRetries: this.maxRetries, idempotent: false, signal },
    );
    let finished = false;
    try {
      const contentType = response.headers.get('content-type') ?? '';
      if (!contentType.toLowerCase().startsWith('text/event-stream')) {
        // Errors before the first event come back as plain JSON (docs/a2a.md §7.8).
        const result = await this.readJson(response, { id, signal });
        const event = streamResponseSchema.safeParse(result);
        if (!event.success) {
          throw new InvalidAgentResponseError(`The agent's ${method} reply is not a stream.`);
        }
        yield event.data;
        finished = true;
        return;
      }
      let first = true;
      for await (const sse of parseSseStream(response, {
        ...(this.maxEventBytes === undefined ? {} : { maxEventBytes: this.maxEventBytes }),
        controller,
        idleTimeoutMs: timeoutMs,
        signal: options.signal,
      })) {
        const event = streamEvent(sse.data, { id, status: response.status });
        yield event;
        if (options.signal?.aborted) throw new AbortError();
        if (endsTurn(event, { first, continuedTaskId })) {
          finished = true;
          return;
        }
        first = false;
      }
      throw new StreamInterruptedError(
        `The ${method} stream ended before a terminal or interrupted state; GetTask or SubscribeToTask can recover the task.`,
      );
    } catch (error) {
      if (
        options.signal?.aborted &&
        !(FleetError.isInstance(error) && error instanceof AbortError)
      ) {
        throw new AbortError(undefined, { cause: error });
      }
      throw error;
    } finally {
      // Stop the request: after the end of the turn (the server may keep the stream open), or
      // when the caller left the loop early.
      controller.abort();
      if (!finished) void response.body?.cancel().catch(() => undefined);
    }
  }
}
