import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import {
  findData,
  partsText,
  progressEventSchema,
  RESULT_ARTIFACT_NAME,
  runResultSchema,
  sumRunUsage,
  type Part,
  type RunResult,
  type StepUsage,
  type StreamResponse,
  type TaskStatus,
} from '@fleet/a2a';
import {
  FleetError,
  ServiceUnavailableError,
  StreamInterruptedError,
  UpstreamError,
  UpstreamTimeoutError,
} from '@fleet/errors';
import { setLlmAttributes, setSessionAttributes, setSpanOutput, type Span } from '@fleet/telemetry';
import { chatAnswerChannel, type AnswerChannelFactory } from '../openai';
import {
  createChunkWriter,
  progressObject,
  toCompletion,
  type ChunkWriter,
  type CollectedRun,
  type FleetChunk,
} from './openai-chunks';

const progressDataSchema = z.object({ progress: progressEventSchema });
const sessionMetadataSchema = z.object({ sessionId: z.string() });

/**
 * Where a run's A2A events come from: a new run (`sendStreamingMessage`), a subscription to the
 * orchestrator task running a session (`subscribeToTask`), a resume, or a stored answer. Called
 * once; `signal` aborts when the client goes away.
 */
export type RunEventSource = (signal: AbortSignal) => AsyncIterable<StreamResponse>;

/** What {@link answerRun} needs. */
export interface AnswerRunOptions {
  events: RunEventSource;
  /** The orchestrator's endpoint, named when it cannot be reached. */
  orchestratorUrl: string;
  /** The `model` the answer names (the request's). */
  model: string;
  /** Stream chunks (SSE) or answer with one `chat.completion`. */
  stream: boolean;
  /**
   * `stream_options.include_usage`: a last chunk with the run's `usage` (null when no count is
   * known) before `[DONE]`. @default false
   */
  includeUsage?: boolean | undefined;
  /**
   * Model calls the gateway made for this request before the run (the `auto` classifier, as step
   * `classifier`): added to the run's usage.
   */
  gatewaySteps?: readonly StepUsage[] | undefined;
  res: ServerResponse;
  /** Headers every answer carries (the route taken). */
  responseHeaders: Record<string, string>;
  /** The gateway's root span: gets the session id and the answer. */
  span: Span | undefined;
  /** The session, when it is known before the first event (a resume). */
  sessionId?: string | undefined;
  /** Keep-alive comment interval while the run is quiet. @default 15000 */
  keepAliveMs?: number;
  /**
   * Runs before the response's last bytes go out (not when the client went away): a resume gives
   * its attach lease back here, so the client's next request never finds it still taken.
   */
  beforeEnd?: (() => Promise<void>) | undefined;
  /**
   * Awaited when the run names its session, before anything of it goes to the client (whose
   * `X-Session-ID` header is the first thing that could tell another client the id): the request
   * that starts a run takes the session's attach lease here.
   */
  onSession?: ((sessionId: string) => Promise<void>) | undefined;
  /**
   * Gets the run's usage (gateway steps included; undefined when the result carries none) once the
   * run finished and the client is still there, e.g. for the tenant's token budget.
   */
  onUsage?: ((usage: RunResult['usage'] | undefined) => void) | undefined;
  /**
   * Renders the answer for the API the client called (`/v1/responses` passes its own).
   * @default chatAnswerChannel
   */
  channel?: AnswerChannelFactory | undefined;
}

/** What the run's events said, as they arrive. */
type RunEvent =
  | { kind: 'session'; sessionId: string }
  | { kind: 'progress'; line: string; fleet: Record<string, unknown> | undefined }
  | {
      kind: 'answer';
      text: string;
      result: RunResult | undefined;
      /** True: more of the answer (an artifact chunk); false: the answer so far, whole. */
      append: boolean;
    }
  | { kind: 'failed'; reason: string }
  | { kind: 'paused'; line: string };

/** Reads a task status (of an update, or of a task snapshot) as the gateway cares about it. */
function interpretStatus(
  { status, metadata }: { status: TaskStatus; metadata?: Record<string, unknown> | undefined },
  sessionId: string | undefined,
): RunEvent[] {
  const found: RunEvent[] = [];
  const session = sessionMetadataSchema.safeParse(metadata ?? {});
  if (session.success && session.data.sessionId !== sessionId) {
    found.push({ kind: 'session', sessionId: session.data.sessionId });
  }
  const parts = status.message?.parts ?? [];
  const line = partsText(parts);
  const progress = findData(parts, progressDataSchema)?.progress;
  const knownSession = session.success ? session.data.sessionId : sessionId;
  switch (status.state) {
    case 'TASK_STATE_FAILED':
    case 'TASK_STATE_REJECTED':
    case 'TASK_STATE_CANCELED':
      found.push({ kind: 'failed', reason: line || `The run ended as ${status.state}.` });
      break;
    case 'TASK_STATE_AUTH_REQUIRED':
    case 'TASK_STATE_INPUT_REQUIRED':
      found.push({ kind: 'paused', line: line || 'The run is waiting for input.' });
      break;
    case 'TASK_STATE_SUBMITTED':
    case 'TASK_STATE_WORKING':
    case 'TASK_STATE_COMPLETED':
      // Every progress event passes, whatever its type (approval-required and approval-end
      // included): the client sees what the orchestrator reports, not a gateway-chosen subset.
      if (line !== '' || progress !== undefined) {
        found.push({
          kind: 'progress',
          line,
          fleet: progress === undefined ? undefined : progressObject(progress, knownSession),
        });
      }
  }
  return found;
}

/** Reads one A2A stream event as the gateway cares about it. */
function interpret(event: StreamResponse, sessionId: string | undefined): RunEvent[] {
  if ('statusUpdate' in event) return interpretStatus(event.statusUpdate, sessionId);
  if ('artifactUpdate' in event) {
    const { artifact, append } = event.artifactUpdate;
    if (artifact.name !== RESULT_ARTIFACT_NAME) return [];
    return [
      {
        kind: 'answer',
        text: answerText(artifact.parts),
        result: findData(artifact.parts, runResultSchema),
        append: append === true,
      },
    ];
  }
  if ('message' in event) {
    return [
      { kind: 'answer', text: partsText(event.message.parts), result: undefined, append: false },
    ];
  }
  // A task snapshot: the first event of a send (SUBMITTED, nothing to show) or of a subscription
  // (where the run stands now: its last progress line, its result if it was just written).
  const { task } = event;
  const found = interpretStatus({ status: task.status, metadata: task.metadata }, sessionId);
  for (const artifact of task.artifacts ?? []) {
    if (artifact.name === RESULT_ARTIFACT_NAME) {
      found.push({
        kind: 'answer',
        text: answerText(artifact.parts),
        result: findData(artifact.parts, runResultSchema),
        append: false,
      });
    }
  }
  return found;
}

/**
 * The text of the `result` artifact, or of the chunks of it an event carries: its text parts
 * joined with nothing between them, since a streamed answer arrives as pieces of one text
 * (docs/a2a.md, "The result artifact").
 */
function answerText(parts: readonly Part[]): string {
  return parts
    .map((part) => part.text)
    .filter((text): text is string => text !== undefined)
    .join('');
}

/**
 * What of an answer event is new to the reader: a chunk is all new; a whole answer is new past
 * what was already shown (a subscription's snapshot, or a last artifact sent whole). A whole answer
 * that does not continue what was shown goes out after a blank line: shown text is never taken
 * back.
 */
function newAnswerText(
  shown: string,
  { text, append }: { text: string; append: boolean },
): { piece: string; answer: string } {
  if (append) return { piece: text, answer: shown + text };
  if (text.startsWith(shown)) return { piece: text.slice(shown.length), answer: text };
  return { piece: `\n\n${text}`, answer: text };
}

function describeFailure(
  error: unknown,
  orchestratorUrl: string,
  sessionId: string | undefined,
): FleetError {
  if (FleetError.isInstance(error) && error.code === 'UPSTREAM_UNREACHABLE') {
    return new ServiceUnavailableError(
      `The orchestrator is not reachable (${orchestratorUrl}); start the fleet with \`pnpm fleet up\` or set ORCHESTRATOR_URL.`,
      { cause: error },
    );
  }
  if (FleetError.isInstance(error) && error.code === 'UPSTREAM_STREAM_INTERRUPTED') {
    // The orchestrator went away mid-run (a crash or a restart): the session is durable.
    const resume =
      sessionId === undefined
        ? ''
        : ` Session ${sessionId} goes on once an orchestrator takes it up again: send the request with the header X-Session-ID: ${sessionId} to follow it, or see GET /v1/sessions/${sessionId}.`;
    return new StreamInterruptedError(
      `The orchestrator stopped answering in the middle of the run.${resume}`,
      { cause: error },
    );
  }
  if (FleetError.isInstance(error) && error.code === 'UPSTREAM_TIMEOUT') {
    // Silent past the idle limit (GATEWAY_AGENT_IDLE_TIMEOUT_MS): keep-alives stopped too, so the
    // orchestrator is stuck or gone; the session itself is durable.
    const follow =
      sessionId === undefined
        ? ''
        : ` Session ${sessionId} is kept: send the request with the header X-Session-ID: ${sessionId} to follow it, or see GET /v1/sessions/${sessionId}.`;
    return new UpstreamTimeoutError(
      `The orchestrator went silent (GATEWAY_AGENT_IDLE_TIMEOUT_MS): ${error.message}${follow}`,
      { cause: error },
    );
  }
  return FleetError.isInstance(error)
    ? error
    : new UpstreamError('The orchestrator failed.', { status: 502, cause: error });
}

/** The headers of a run's answer: the route taken, and the session once it is known. */
function answerHeaders(
  responseHeaders: Record<string, string>,
  sessionId: string | undefined,
): Record<string, string> {
  return sessionId === undefined
    ? responseHeaders
    : { ...responseHeaders, 'x-session-id': sessionId };
}

/**
 * The run's result with the gateway's own steps added to its usage. A result without usage (from
 * an orchestrator that predates it) stays without: the run's part is unknown.
 */
function withGatewaySteps(
  result: RunResult | undefined,
  gatewaySteps: readonly StepUsage[],
): RunResult | undefined {
  if (result?.usage === undefined || gatewaySteps.length === 0) return result;
  return { ...result, usage: sumRunUsage([...gatewaySteps, ...result.usage.steps]) };
}

/**
 * Records the run's usage on the gateway's root span: the known sums as OpenInference token counts
 * (`llm.token_count.*`, absent when none is known) and whether they are complete.
 */
function describeUsageSpan(span: Span | undefined, result: RunResult | undefined): void {
  const usage = result?.usage;
  if (usage === undefined || span?.isRecording() !== true) return;
  span.setAttribute('fleet.usage.complete', usage.complete);
  if (usage.calls === 0) return;
  setLlmAttributes(span, {
    tokenCounts: {
      prompt: usage.promptTokens,
      completion: usage.completionTokens,
      total: usage.totalTokens,
    },
  });
}

/**
 * Reads a run's events into `run` as they arrive and, when streaming, hands each chunk to `send`
 * (undefined: no chunk is built). Throws when the run failed.
 */
async function collectRun({
  events,
  run,
  span,
  writer,
  send,
  gatewaySteps,
  onSession,
}: {
  events: AsyncIterable<StreamResponse>;
  run: CollectedRun;
  span: Span | undefined;
  writer: ChunkWriter;
  send: ((chunk: FleetChunk) => void) | undefined;
  gatewaySteps: readonly StepUsage[];
  onSession: AnswerRunOptions['onSession'];
}): Promise<void> {
  for await (const event of events) {
    for (const found of interpret(event, run.sessionId)) {
      const happening =
        found.kind === 'answer'
          ? { ...found, result: withGatewaySteps(found.result, gatewaySteps) }
          : found;
      switch (happening.kind) {
        case 'session':
          run.sessionId = happening.sessionId;
          if (span?.isRecording()) setSessionAttributes(span, { sessionId: happening.sessionId });
          await onSession?.(happening.sessionId);
          break;
        case 'progress':
          if (happening.line !== '') run.lines.push(happening.line);
          send?.(writer.progress(happening.line, happening.fleet));
          break;
        case 'answer': {
          const { piece, answer } = newAnswerText(run.answer, happening);
          run.answer = answer;
          if (!happening.append || happening.result !== undefined) run.result = happening.result;
          // A chunk with no text and no result adds nothing for the reader.
          if (piece !== '' || happening.result !== undefined) {
            send?.(writer.answer(piece, happening.result));
          }
          break;
        }
        case 'paused':
          run.lines.push(happening.line);
          send?.(writer.progress(happening.line, { type: 'run-paused', sessionId: run.sessionId }));
          break;
        case 'failed':
          throw new UpstreamError(`The orchestrated run failed: ${happening.reason}`, {
            status: 502,
          });
      }
    }
  }
}

/**
 * Answers a chat completion from an orchestrated run's A2A events, in OpenAI's shape: streamed as
 * progress (`reasoning_content` + `fleet`) and the answer as `delta.content` chunks while the
 * orchestrator writes it (its `result` artifact chunks, `append: true`; the last one brings the
 * `run-result`), or as one `chat.completion` with the whole text carrying the same `fleet` object. `X-Session-ID` names the run's session. The run's model usage (its
 * `RunResult.usage` plus `gatewaySteps`) is OpenAI's `usage` when any count is known: in the JSON
 * answer, and in a last chunk before `[DONE]` when `includeUsage` asks for it (`usage: null` when
 * none is known); `fleet.usage` has the steps. The one translation of orchestrator
 * events for every source (new run, subscription, resume, stored answer). A client that
 * disconnects stops the gateway reading; the run itself goes on and is recorded in its session.
 *
 * @throws FleetError before anything was sent (orchestrator unreachable, failed run when not streaming).
 * @example
 * await answerRun({ events: (signal) => client.sendStreamingMessage({ message }, { signal }),
 *   orchestratorUrl: client.url, model, stream: true, res, responseHeaders, span });
 */
export async function answerRun({
  events,
  orchestratorUrl,
  model,
  stream,
  includeUsage = false,
  gatewaySteps = [],
  res,
  responseHeaders,
  span,
  sessionId,
  keepAliveMs = 15_000,
  beforeEnd,
  onSession,
  channel = chatAnswerChannel,
  onUsage,
}: AnswerRunOptions): Promise<void> {
  const abort = new AbortController();
  const sse = channel(res, { keepAliveMs, onClose: () => abort.abort() });
  const writer = createChunkWriter({ model });
  const run: CollectedRun = { lines: [], answer: '', result: undefined, sessionId };
  const send = (chunk: FleetChunk): void => {
    if (!sse.opened) sse.open({ headers: answerHeaders(responseHeaders, run.sessionId) });
    sse.chunk(chunk);
  };

  try {
    await collectRun({
      events: events(abort.signal),
      run,
      span,
      writer,
      send: stream ? send : undefined,
      gatewaySteps,
      onSession,
    });
  } catch (error) {
    if (abort.signal.aborted) {
      // The client went away: make sure its connection is released, whatever state it is in.
      res.destroy();
      return;
    }
    const failure = describeFailure(error, orchestratorUrl, run.sessionId);
    if (!stream || !sse.opened) throw failure;
    await beforeEnd?.();
    // Mid-stream: an error event OpenAI SDKs raise as an APIError, never a clean end.
    sse.fail(failure);
    return;
  } finally {
    sse.release();
  }
  if (abort.signal.aborted) return;
  if (span?.isRecording()) setSpanOutput(span, run.answer);
  describeUsageSpan(span, run.result);
  onUsage?.(run.result?.usage);

  await beforeEnd?.();
  if (stream) {
    send(writer.stop());
    if (includeUsage) sse.chunk(writer.usage(run.result?.usage));
    sse.done();
    return;
  }
  sse.json({
    headers: answerHeaders(responseHeaders, run.sessionId),
    completion: toCompletion(run, { model }),
  });
}
