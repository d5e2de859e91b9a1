import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import {
  findData,
  partsText,
  RESULT_ARTIFACT_NAME,
  type Part,
  type StreamResponse,
  type TaskStatus,
} from '@fleet/a2a';
import {
  BadRequestError,
  FleetError,
  ServiceUnavailableError,
  UpstreamError,
  UpstreamTimeoutError,
} from '@fleet/errors';
import { setSpanOutput, type Span } from '@fleet/telemetry';
import { chatAnswerChannel, type AnswerChannelFactory, type ChatChunkLike } from '../openai';
import { createChunkWriter, type ChunkWriter, type FleetChunk } from '../orchestration';

// Tolerant readers of the reasoning agent's parts (CONTRIBUTING.md convention 9): the gateway shows what it
// understands and passes the rest through.
const stepDataSchema = z.object({ reasoningStep: z.looseObject({ type: z.string() }) });
const resultDataSchema = z.looseObject({
  usage: z
    .object({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() })
    .optional(),
  stopReason: z.string().optional(),
  iterations: z.number().optional(),
});
const errorDataSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/** Token usage in OpenAI's shape. */
export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** The non-streaming answer of the reasoning route. */
export interface ReasoningCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: 0;
    message: { role: 'assistant'; content: string; reasoning_content: string };
    finish_reason: 'stop';
  }[];
  usage?: OpenAIUsage;
  fleet: Record<string, unknown>;
}

/** Where the reasoning agent's A2A events come from; `signal` aborts when the client goes away. */
export type ReasoningEventSource = (signal: AbortSignal) => AsyncIterable<StreamResponse>;

/** What {@link answerReasoning} needs. */
export interface AnswerReasoningOptions {
  events: ReasoningEventSource;
  /** The reasoning agent's base URL, named when it cannot be reached. */
  agentUrl: string;
  /** The `model` the answer names (the request's). */
  model: string;
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk with `usage` before `[DONE]`. */
  includeUsage: boolean;
  res: ServerResponse;
  /** Headers every answer carries (the route taken). */
  responseHeaders: Record<string, string>;
  /** The gateway's root span: gets the answer. */
  span: Span | undefined;
  /** Keep-alive comment interval while the agent is quiet. @default 15000 */
  keepAliveMs?: number;
  /**
   * Renders the answer for the API the client called (`/v1/responses` passes its own).
   * @default chatAnswerChannel
   */
  channel?: AnswerChannelFactory | undefined;
  /**
   * Gets the agent's usage once its answer is complete (undefined when it reported none), e.g. for
   * the tenant's token budget; not called when the task failed or the client left.
   */
  onUsage?: ((usage: OpenAIUsage | undefined) => void) | undefined;
}

type ReasoningHappening =
  | { kind: 'step'; line: string; step: Record<string, unknown> | undefined }
  | { kind: 'answer-delta'; text: string }
  | { kind: 'answer'; text: string; data: z.infer<typeof resultDataSchema> | undefined }
  | { kind: 'failed'; error: FleetError };

function failure(state: TaskStatus['state'], parts: readonly Part[]): FleetError {
  const text = partsText(parts) || `The reasoning task ended as ${state}.`;
  const code = findData(parts, errorDataSchema)?.error.code;
  if (code === 'SERVICE_UNAVAILABLE') return new ServiceUnavailableError(text);
  if (state === 'TASK_STATE_REJECTED') return new BadRequestError(text);
  return new UpstreamError(`The reasoning agent failed: ${text}`, { status: 502 });
}

function interpretStatus(status: TaskStatus): ReasoningHappening[] {
  const parts = status.message?.parts ?? [];
  switch (status.state) {
    case 'TASK_STATE_FAILED':
    case 'TASK_STATE_REJECTED':
    case 'TASK_STATE_CANCELED':
    case 'TASK_STATE_AUTH_REQUIRED':
    case 'TASK_STATE_INPUT_REQUIRED':
      return [{ kind: 'failed', error: failure(status.state, parts) }];
    case 'TASK_STATE_WORKING': {
      const line = partsText(parts);
      if (line === '') return [];
      return [{ kind: 'step', line, step: findData(parts, stepDataSchema)?.reasoningStep }];
    }
    // SUBMITTED has nothing to show; COMPLETED carries a summary of the run, not a step.
    case 'TASK_STATE_SUBMITTED':
    case 'TASK_STATE_COMPLETED':
      return [];
  }
}

/**
 * The `result` artifact: a chunk appended to it (`append: true`) is a piece of the answer being
 * written; anything else is the whole answer (the last chunk restates it with the data part).
 */
function interpretArtifact(
  artifact: { name?: string | undefined; parts: Part[] },
  append = false,
): ReasoningHappening[] {
  if (artifact.name !== RESULT_ARTIFACT_NAME) return [];
  if (append) {
    // Consecutive text chunks are one text: joined as they are, not line by line.
    const text = artifact.parts.flatMap((part) => (part.text === undefined ? [] : [part.text]));
    return [{ kind: 'answer-delta', text: text.join('') }];
  }
  return [
    {
      kind: 'answer',
      text: partsText(artifact.parts),
      data: findData(artifact.parts, resultDataSchema),
    },
  ];
}

function interpret(event: StreamResponse): ReasoningHappening[] {
  if ('statusUpdate' in event) return interpretStatus(event.statusUpdate.status);
  if ('artifactUpdate' in event) {
    const { artifact, append } = event.artifactUpdate;
    return interpretArtifact(artifact, append === true);
  }
  if ('message' in event) {
    return [{ kind: 'answer', text: partsText(event.message.parts), data: undefined }];
  }
  return [
    ...interpretStatus(event.task.status),
    ...(event.task.artifacts ?? []).flatMap((artifact) => interpretArtifact(artifact)),
  ];
}

function describeFailure(error: unknown, agentUrl: string): FleetError {
  if (FleetError.isInstance(error) && error.code === 'UPSTREAM_UNREACHABLE') {
    return new ServiceUnavailableError(
      `The reasoning agent is not reachable (${agentUrl}); start the fleet with \`pnpm fleet up\` or set REASONING_AGENT_URL.`,
      { cause: error },
    );
  }
  if (FleetError.isInstance(error) && error.code === 'UPSTREAM_TIMEOUT') {
    // Silent past the idle limit: keep-alives stopped too, so the agent is stuck or gone (a slow
    // model call alone keeps its keep-alives coming, up to LLM_TIMEOUT_MS).
    return new UpstreamTimeoutError(
      `The reasoning agent went silent (GATEWAY_AGENT_IDLE_TIMEOUT_MS): ${error.message}`,
      { cause: error },
    );
  }
  return FleetError.isInstance(error)
    ? error
    : new UpstreamError('The reasoning agent failed.', { status: 502, cause: error });
}

function toUsage(data: z.infer<typeof resultDataSchema> | undefined): OpenAIUsage | undefined {
  if (data?.usage === undefined) return undefined;
  return {
    prompt_tokens: data.usage.promptTokens,
    completion_tokens: data.usage.completionTokens,
    total_tokens: data.usage.totalTokens,
  };
}

type ReasoningAnswer = { text: string; data: z.infer<typeof resultDataSchema> | undefined };

/**
 * Reads the reasoning agent's events: each step's line goes into `lines` and, when streaming, its
 * chunk to `send` (undefined: no chunk is built); so does each piece of the answer as its artifact
 * chunk arrives. The whole answer that ends the artifact adds only what the pieces did not already
 * say. Returns the answer; throws when the task failed or ended without one.
 */
async function collectReasoning({
  events,
  lines,
  writer,
  send,
}: {
  events: AsyncIterable<StreamResponse>;
  lines: string[];
  writer: ChunkWriter;
  send: ((chunk: FleetChunk) => void) | undefined;
}): Promise<ReasoningAnswer> {
  let answer: ReasoningAnswer | undefined;
  // What the client was already sent of the answer, piece by piece.
  let streamed = '';
  for await (const event of events) {
    for (const happening of interpret(event)) {
      switch (happening.kind) {
        case 'step':
          lines.push(happening.line);
          send?.(
            writer.progress(
              happening.line,
              happening.step === undefined
                ? undefined
                : { type: 'reasoning-step', step: happening.step },
            ),
          );
          break;
        case 'answer-delta':
          if (happening.text === '') break;
          streamed += happening.text;
          send?.(writer.answer(happening.text, undefined));
          break;
        case 'answer': {
          answer = { text: happening.text, data: happening.data };
          // The agent's last chunk repeats the pieces: send only what they left out. A whole
          // answer that does not continue them (an agent that changed its mind) cannot unsay
          // them; the non-streamed answer and the span carry it.
          const rest = happening.text.startsWith(streamed)
            ? happening.text.slice(streamed.length)
            : '';
          streamed = happening.text.startsWith(streamed) ? happening.text : streamed;
          if (rest !== '') send?.(writer.answer(rest, undefined));
          break;
        }
        case 'failed':
          throw happening.error;
      }
    }
  }
  if (answer === undefined) {
    throw new UpstreamError('The reasoning agent ended its stream without an answer.', {
      status: 502,
    });
  }
  return answer;
}

/** The one `chat.completion` of a reasoning answer that is not streamed. */
function toReasoningCompletion({
  writer,
  model,
  answer,
  lines,
}: {
  writer: ChunkWriter;
  model: string;
  answer: ReasoningAnswer;
  lines: readonly string[];
}): ReasoningCompletion {
  const usage = toUsage(answer.data);
  return {
    id: writer.id,
    object: 'chat.completion',
    created: writer.created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.text,
          reasoning_content: lines.map((line) => `${line}\n`).join(''),
        },
        finish_reason: 'stop',
      },
    ],
    ...(usage === undefined ? {} : { usage }),
    fleet: {
      route: 'reasoning',
      ...(answer.data?.stopReason === undefined ? {} : { stopReason: answer.data.stopReason }),
      ...(answer.data?.iterations === undefined ? {} : { iterations: answer.data.iterations }),
    },
  };
}

/**
 * Answers a chat completion from the reasoning agent's A2A events, in OpenAI's shape: streamed as
 * one `delta.reasoning_content` line per step (`Thinking: …`, `Calling calculate(…)`, `Result: …`,
 * the step itself in the chunk's `fleet` field), then the answer as `delta.content`, one chunk per
 * piece of the agent's streamed `result` artifact as it arrives, then `usage`
 * when `stream_options.include_usage` asks for it, then `[DONE]`; or as one `chat.completion` with
 * `message.reasoning_content` and `message.content`. A stream that breaks after the first byte ends
 * with an `event: error` frame, never a clean `[DONE]`.
 *
 * @throws FleetError before anything was sent (agent unreachable, failed or offline task when not
 *   streaming).
 * @example
 * await answerReasoning({ events: (signal) => client.sendStreamingMessage({ message }, { signal }),
 *   agentUrl, model, stream: true, includeUsage: false, res, responseHeaders, span });
 */
export async function answerReasoning({
  events,
  agentUrl,
  model,
  stream,
  includeUsage,
  res,
  responseHeaders,
  span,
  keepAliveMs = 15_000,
  channel = chatAnswerChannel,
  onUsage,
}: AnswerReasoningOptions): Promise<void> {
  const abort = new AbortController();
  const sse = channel(res, { keepAliveMs, onClose: () => abort.abort() });
  const writer = createChunkWriter({ model });
  const lines: string[] = [];
  const send = (chunk: ChatChunkLike): void => {
    if (!sse.opened) sse.open({ headers: responseHeaders });
    sse.chunk(chunk);
  };

  let answer: ReasoningAnswer;
  try {
    answer = await collectReasoning({
      events: events(abort.signal),
      lines,
      writer,
      send: stream ? send : undefined,
    });
  } catch (error) {
    if (abort.signal.aborted) {
      // The client went away: release its connection; the agent's task is cancelled with it.
      res.destroy();
      return;
    }
    const failed = describeFailure(error, agentUrl);
    if (!stream || !sse.opened) throw failed;
    // Mid-stream: an error event OpenAI SDKs raise as an APIError, never a clean end.
    sse.fail(failed);
    return;
  } finally {
    sse.release();
  }
  if (abort.signal.aborted) return;
  if (span?.isRecording()) setSpanOutput(span, answer.text);
  onUsage?.(toUsage(answer.data));

  if (stream) {
    send(writer.stop());
    if (includeUsage) {
      send({
        id: writer.id,
        object: 'chat.completion.chunk',
        created: writer.created,
        model,
        choices: [],
        usage: toUsage(answer.data) ?? null,
      });
    }
    sse.done();
    return;
  }
  sse.json({
    headers: responseHeaders,
    completion: toReasoningCompletion({ writer, model, answer, lines }),
  });
}
