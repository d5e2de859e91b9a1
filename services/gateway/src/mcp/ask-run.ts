import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { ServiceUnavailableError, UpstreamError } from '@fleet/errors';
import type { ChatCompletionsOptions } from '../chat/chat-completions-route';
import { RESUME_HEADERS, routeRequest, type RequestApi } from '../chat/route-request';
import type { ChatCompletionRequest } from '../chat/chat-completion-request';
import type { AnswerChannel, AnswerChannelFactory, ChatChunkLike } from '../openai';
import type { AgentSteering, ResultReview } from '@fleet/a2a';
import type { PlanApproval } from '../orchestration/orchestrate';
import type { RoutingMode } from '../routing';
import { resumeSession, type QuestionAnswered } from '../sessions';
import { NO_REQUEST_LIMITS, type RequestLimits } from '../tenant-limits';

/** What a followed run reports, in order. */
export type AskRunEvent =
  | {
      kind: 'progress';
      /** The readable progress line. */
      line: string;
      /** The structured progress event (`type`, `sessionId`, …), when there is one. */
      fleet: Record<string, unknown> | undefined;
    }
  | { kind: 'answer'; text: string }
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'end' }
  | { kind: 'failed'; error: unknown };

/** One run the `ask` tool follows: its events, and a way to stop following (the run goes on). */
export interface AskRun {
  events: AsyncIterable<AskRunEvent>;
  /** Stops reading the run; the run itself goes on and is recorded in its session. */
  stop(): void;
  /**
   * Ends the run's response (after its end was read): a run slot it held is given back, and the
   * session's attach lease too. Resolves once the gateway's side of the run has let go of them
   * (at most {@link RUN_RELEASE_WAIT_MS}), so a client answered after it finds the session free
   * to follow, even from another gateway should this one die the next moment.
   */
  close(): Promise<void>;
}

/** The longest {@link AskRun.close} waits for the run's response to let go of the session. */
export const RUN_RELEASE_WAIT_MS = 2000;

/** The model name the fleet's own routes answer with. */
const ASK_MODEL = 'fleet-orchestration';

/** The MCP server as an API the agent routes answer on (the span's name). */
const MCP_PATH = '/mcp';

/** An unbounded queue read as an async iterable, ending after `end` or `failed`. */
function eventQueue(): { push(event: AskRunEvent): void; iterable: AsyncIterable<AskRunEvent> } {
  const items: AskRunEvent[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    push(event) {
      if (ended) return;
      if (event.kind === 'end' || event.kind === 'failed') ended = true;
      items.push(event);
      wake?.();
    },
    iterable: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const next = items.shift();
          if (next !== undefined) {
            yield next;
            if (next.kind === 'end' || next.kind === 'failed') return;
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      },
    },
  };
}

/**
 * A response no socket carries: the agent routes write their headers to it and answer through
 * the capturing channel instead. Bytes written to it (a passthrough answer) are collected.
 */
function detachedResponse(): { res: ServerResponse; body: () => string } {
  const req = new IncomingMessage(new Socket());
  req.headers = {};
  req.method = 'POST';
  req.url = MCP_PATH;
  const res = new ServerResponse(req);
  const chunks: Buffer[] = [];
  const collect = (chunk: unknown): void => {
    if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  res.write = ((chunk: unknown) => {
    collect(chunk);
    return true;
  }) as ServerResponse['write'];
  res.end = ((chunk?: unknown) => {
    if (typeof chunk !== 'function') collect(chunk);
    res.emit('finish');
    return res;
  }) as ServerResponse['end'];
  return { res, body: () => Buffer.concat(chunks).toString('utf8') };
}

/** The channel that hands a run's chunks to the queue instead of writing them to a client. */
function capturingChannel(
  push: (event: AskRunEvent) => void,
  onStop: (stop: () => void) => void,
): AnswerChannelFactory {
  return (_res, options): AnswerChannel => {
    let opened = false;
    if (options.onClose !== undefined) onStop(options.onClose);
    const read = (chunk: ChatChunkLike): void => {
      const delta = chunk.choices[0]?.delta ?? {};
      const fleet = chunk.fleet;
      if (fleet?.['type'] === 'run-result') {
        if (delta.content !== undefined && delta.content !== '') {
          push({ kind: 'answer', text: delta.content });
        }
        push({ kind: 'result', result: fleet });
        return;
      }
      if (delta.reasoning_content !== undefined) {
        push({ kind: 'progress', line: delta.reasoning_content.replace(/\n$/, ''), fleet });
      }
      if (delta.content !== undefined && delta.content !== '') {
        push({ kind: 'answer', text: delta.content });
      }
    };
    return {
      get opened() {
        return opened;
      },
      open: () => {
        opened = true;
      },
      chunk: (chunk) => {
        opened = true;
        read(chunk);
      },
      done: () => push({ kind: 'end' }),
      fail: (error) => push({ kind: 'failed', error }),
      release: () => undefined,
      json: ({ completion }) => {
        const [choice] = completion.choices;
        if (choice !== undefined && choice.message.content !== '') {
          push({ kind: 'answer', text: choice.message.content });
        }
        if (completion.fleet !== undefined) push({ kind: 'result', result: completion.fleet });
        push({ kind: 'end' });
      },
    };
  };
}

/** What {@link startAskRun} needs beside the gateway's route options. */
export interface StartAskRunOptions {
  tenant: string;
  question: string;
  route: Exclude<RoutingMode, 'passthrough'>;
  /** Continue this session (as `X-Session-ID` does) instead of starting a run. */
  sessionId?: string | undefined;
  /** Agent steering for a new orchestrated run (a continued session keeps its own). */
  steering?: AgentSteering | undefined;
  /** Whether a new orchestrated run shows its plan for approval first. @default 'none' */
  planApproval?: PlanApproval | undefined;
  /** Whether a new orchestrated run's answer waits for a review. @default no review */
  resultReview?: ResultReview | undefined;
  /**
   * Continuing a session: which pending question `question` answers (see `resumeSession`).
   * @default 'oldest'
   */
  answers?: QuestionAnswered | undefined;
  /**
   * The tenant's limits for a new run, given the run's response (which closes when the `ask`
   * stops following the run). @default nothing limited
   */
  limits?: ((res: ServerResponse) => RequestLimits) | undefined;
}

/**
 * Closes a run's response once the run is no longer followed (a run slot it held is given back,
 * the attach lease released as the route's own request ends), and waits for the run's promise,
 * `settled`, to say the route has let go (at most {@link RUN_RELEASE_WAIT_MS}).
 */
function closerOf(res: ServerResponse, settled: Promise<unknown>): () => Promise<void> {
  let closed = false;
  return async () => {
    if (!closed) {
      closed = true;
      res.emit('close');
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      settled,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, RUN_RELEASE_WAIT_MS);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
  };
}

/** The answer of a passthrough (`auto` chose the upstream model): its message text. */
function passthroughAnswer(body: string): string {
  try {
    const parsed = JSON.parse(body) as { choices?: { message?: { content?: unknown } }[] };
    const content = parsed.choices?.[0]?.message?.content;
    if (typeof content === 'string') return content;
  } catch {
    // Reported below.
  }
  throw new UpstreamError(
    'The upstream model answered with something other than a chat completion.',
    {
      status: 502,
    },
  );
}

/**
 * Runs a question through the same code the chat completions route uses (`routeRequest`: the
 * route decided as there, the orchestrator or the reasoning agent over A2A, the tenant's tool
 * policy and steering rules, a cut run followed on), or continues a session as `X-Session-ID`
 * does (`resumeSession`), answering through a channel that hands each chunk to the caller as an
 * {@link AskRunEvent} instead of writing it to a socket.
 */
export function startAskRun(options: ChatCompletionsOptions, ask: StartAskRunOptions): AskRun {
  const queue = eventQueue();
  let stopRun: (() => void) | undefined;
  let stopped = false;
  const channel = capturingChannel(
    (event) => queue.push(event),
    (stop) => {
      stopRun = stop;
      if (stopped) stop();
    },
  );
  const api: RequestApi = { path: MCP_PATH, channel };
  const { res, body } = detachedResponse();
  const request: ChatCompletionRequest = {
    model: ASK_MODEL,
    messages: [{ role: 'user', content: ask.question }],
    stream: true,
  };
  const requestId = `mcp-${randomUUID()}`;

  const run = async (): Promise<void> => {
    if (ask.sessionId !== undefined) {
      await resumeSession({
        store: options.sessions,
        client: options.orchestratorClient,
        sessionId: ask.sessionId,
        tenant: ask.tenant,
        requestId,
        request,
        res,
        responseHeaders: RESUME_HEADERS,
        span: undefined,
        toolPolicy: options.toolPermissions?.policyFor(ask.tenant),
        api: { path: api.path, channel },
        answers: ask.answers,
      });
      return;
    }
    const raw = Buffer.from(JSON.stringify(request));
    await routeRequest(options, {
      headerMode: ask.route,
      planApproval: ask.planApproval ?? 'none',
      steering: ask.steering,
      resultReview: ask.resultReview,
      routable: request,
      messages: () => request.messages,
      agentRequest: () => request,
      body: { value: request, raw },
      tenant: ask.tenant,
      res,
      api,
      limits: ask.limits?.(res) ?? NO_REQUEST_LIMITS,
      passthrough: async (upstream, { body: forwarded }) => {
        const value = JSON.parse(forwarded.toString('utf8')) as Record<string, unknown>;
        await upstream.forward({
          endpoint: 'chat/completions',
          body: Buffer.from(JSON.stringify({ ...value, stream: false })),
          stream: false,
          res,
          requestId,
          responseHeaders: {},
        });
        if (res.statusCode >= 400) {
          throw new ServiceUnavailableError(`The upstream model answered ${res.statusCode}.`);
        }
        queue.push({ kind: 'answer', text: passthroughAnswer(body()) });
        queue.push({ kind: 'end' });
      },
    });
  };

  const settled = run().then(
    () => queue.push({ kind: 'end' }),
    (error: unknown) => queue.push({ kind: 'failed', error }),
  );
  const close = closerOf(res, settled);

  return {
    events: queue.iterable,
    stop() {
      stopped = true;
      stopRun?.();
      void close();
    },
    close,
  };
}
