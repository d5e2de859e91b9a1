import { randomBytes } from 'node:crypto';
import { usageKnown, type ProgressEvent, type RunResult, type RunUsage } from '@fleet/a2a';

/**
 * How orchestration shows up to an OpenAI client (docs/architecture.md §3): progress as
 * `delta.reasoning_content` lines a person can read plus the structured event in a `fleet` field
 * of the chunk (OpenAI SDKs pass unknown fields through), then the answer as `delta.content`:
 * one chunk per piece of the orchestrator's `result` artifact as it streams, the last carrying the
 * run's result as its `fleet` object (`run-result`).
 */

/** One `chat.completion.chunk`, with the fleet's extra `fleet` field. */
export interface FleetChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: 0;
    delta: { role?: 'assistant'; content?: string; reasoning_content?: string };
    finish_reason: 'stop' | null;
  }[];
  fleet?: Record<string, unknown>;
}

/** Token usage in OpenAI's shape. */
export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * The last chunk of a stream that asked for `stream_options.include_usage`: no choices, the run's
 * usage in OpenAI's shape (`null` when no count is known) and the breakdown as `fleet.usage`.
 */
export interface FleetUsageChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: [];
  usage: OpenAIUsage | null;
  fleet?: { type: 'usage'; usage: RunUsage };
}

/**
 * A run's usage in OpenAI's shape: the sums of the counts that are known, or undefined when none
 * is (no model call reported its usage, or none was made): unknown is never reported as zero.
 */
export function toOpenAIUsage(usage: RunUsage | undefined): OpenAIUsage | undefined {
  if (usage === undefined || !usageKnown(usage)) return undefined;
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.totalTokens,
  };
}

/** The non-streaming answer: a `chat.completion` with the same `fleet` object. */
export interface FleetCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: 0;
    message: { role: 'assistant'; content: string; reasoning_content: string };
    finish_reason: 'stop';
  }[];
  /** Absent when no token count of the run is known (`fleet.usage` says why). */
  usage?: OpenAIUsage;
  fleet: Record<string, unknown>;
}

/** Builds the chunks of one orchestrated answer, keeping the id, model and timestamps consistent. */
export interface ChunkWriter {
  readonly id: string;
  /** The `created` timestamp every chunk carries (seconds), for chunks built elsewhere (usage). */
  readonly created: number;
  /** A progress line (and its structured event, when there is one). */
  progress(line: string, event?: Record<string, unknown>): FleetChunk;
  /**
   * A piece of the answer text (a streamed chunk, or all of it), with the run's result as the
   * `fleet` object when given (the answer's last piece).
   */
  answer(text: string, result: RunResult | undefined): FleetChunk;
  /** The last chunk: `finish_reason: 'stop'`. */
  stop(): FleetChunk;
  /** The usage chunk after it, for `stream_options.include_usage` (see {@link FleetUsageChunk}). */
  usage(usage: RunUsage | undefined): FleetUsageChunk;
}

/** Options for {@link createChunkWriter}. */
export interface ChunkWriterOptions {
  model: string;
  /** @default () => Date.now() */
  now?: () => number;
}

/** Creates the chunk builder for one response. */
export function createChunkWriter({ model, now = Date.now }: ChunkWriterOptions): ChunkWriter {
  const id = `chatcmpl-fleet-${randomBytes(12).toString('hex')}`;
  const created = Math.floor(now() / 1000);
  let roleSent = false;
  const chunk = (
    delta: FleetChunk['choices'][number]['delta'],
    extra: { fleet?: Record<string, unknown>; finish?: 'stop' } = {},
  ): FleetChunk => {
    const withRole = roleSent ? delta : { role: 'assistant' as const, ...delta };
    roleSent = true;
    return {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta: withRole, finish_reason: extra.finish ?? null }],
      ...(extra.fleet === undefined ? {} : { fleet: extra.fleet }),
    };
  };
  return {
    id,
    created,
    progress: (line, event) =>
      chunk({ reasoning_content: `${line}\n` }, event === undefined ? {} : { fleet: event }),
    answer: (text, result) =>
      chunk(
        { content: text },
        result === undefined ? {} : { fleet: { type: 'run-result', ...result } },
      ),
    stop: () => chunk({}, { finish: 'stop' }),
    usage: (usage) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [],
      usage: toOpenAIUsage(usage) ?? null,
      ...(usage === undefined ? {} : { fleet: { type: 'usage' as const, usage } }),
    }),
  };
}

/** A progress event as the `fleet` object of its chunk. */
export function progressObject(
  event: ProgressEvent,
  sessionId: string | undefined,
): Record<string, unknown> {
  return sessionId === undefined ? { ...event } : { sessionId, ...event };
}

/** Everything an orchestrated run produced, for the non-streaming response. */
export interface CollectedRun {
  lines: string[];
  answer: string;
  result: RunResult | undefined;
  sessionId: string | undefined;
}

/** Assembles the non-streaming `chat.completion`. */
export function toCompletion(
  run: CollectedRun,
  { model, now = Date.now }: ChunkWriterOptions,
): FleetCompletion {
  const usage = toOpenAIUsage(run.result?.usage);
  return {
    id: `chatcmpl-fleet-${randomBytes(12).toString('hex')}`,
    object: 'chat.completion',
    created: Math.floor(now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: run.answer,
          reasoning_content: run.lines.map((line) => `${line}\n`).join(''),
        },
        finish_reason: 'stop',
      },
    ],
    ...(usage === undefined ? {} : { usage }),
    fleet: { sessionId: run.sessionId, ...(run.result ?? {}) },
  };
}
