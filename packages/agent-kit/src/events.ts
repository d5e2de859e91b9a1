import {
  dataPart,
  handoffPart,
  RESULT_ARTIFACT_NAME,
  textPart,
  type HandoffRequest,
  type Part,
} from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import { toFleetError } from '@fleet/errors';
import { errorData } from './error-data';

/** What an agent's execute function yields. */
export type AgentEvents = AsyncGenerator<AgentEvent, void, undefined>;

/**
 * A WORKING status: what the agent is doing now, if it says — a short line a person reads (the
 * orchestrator shows it under the step, docs/a2a.md §8, "Saying what you are doing"). With a
 * `stage` (a short machine name: `searching`, `reading`, …) and a text message, the status also
 * carries a data part `{ progress: { stage } }`.
 *
 * @example
 * yield working(`Reading ${url}…`, { stage: 'reading' });
 */
export function working(message?: string | Part[], options: { stage?: string } = {}): AgentEvent {
  const withStage =
    options.stage !== undefined && typeof message === 'string'
      ? [textPart(message), dataPart({ progress: { stage: options.stage } })]
      : message;
  return {
    type: 'status',
    state: 'TASK_STATE_WORKING',
    ...(withStage === undefined ? {} : { message: withStage }),
  };
}

/** The COMPLETED status, with a one-line summary of what was done. */
export function completed(message: string | Part[]): AgentEvent {
  return { type: 'status', state: 'TASK_STATE_COMPLETED', message };
}

/**
 * A REJECTED status: the request is not one this agent takes (empty, malformed, out of scope).
 * `data`, when given, travels as a data part beside the reason.
 */
export function rejected(reason: string, data?: unknown): AgentEvent {
  return {
    type: 'status',
    state: 'TASK_STATE_REJECTED',
    message: data === undefined ? reason : [textPart(reason), dataPart(data)],
  };
}

/** Options for {@link failed} and {@link refused}. */
export interface ErrorStatusOptions {
  /** Fields beside `error` in the data part, e.g. `{ code: 'print("hi")' }`. */
  extra?: Record<string, unknown>;
}

function errorStatus(
  state: 'TASK_STATE_FAILED' | 'TASK_STATE_REJECTED',
  error: unknown,
  { extra }: ErrorStatusOptions,
): AgentEvent {
  const fleetError = toFleetError(error);
  return {
    type: 'status',
    state,
    message: [textPart(fleetError.message), dataPart({ ...errorData(fleetError), ...extra })],
  };
}

/**
 * A FAILED status for any error: its message as text and the one error data part
 * (`{ error: { code, message, details? } }`, {@link errorData}), from which the gateway picks the
 * HTTP status and the orchestrator whether to retry.
 *
 * @example
 * try { … } catch (error) { if (context.signal.aborted) throw error; yield failed(error); }
 */
export function failed(error: unknown, options: ErrorStatusOptions = {}): AgentEvent {
  return errorStatus('TASK_STATE_FAILED', error, options);
}

/** A REJECTED status carrying an error the same way {@link failed} does (a refusal with a code). */
export function refused(error: unknown, options: ErrorStatusOptions = {}): AgentEvent {
  return errorStatus('TASK_STATE_REJECTED', error, options);
}

/**
 * The task's `result` artifact, in one chunk: the answer as text and, when given, the agent's
 * structured data beside it (the orchestrator passes the text on to later steps).
 */
export function result(text: string, data?: unknown, extraParts: readonly Part[] = []): AgentEvent {
  return {
    type: 'artifact',
    artifact: {
      name: RESULT_ARTIFACT_NAME,
      parts: [textPart(text), ...(data === undefined ? [] : [dataPart(data)]), ...extraParts],
    },
    lastChunk: true,
  };
}

/** The name of the artifact {@link handoff} sends. */
export const HANDOFF_ARTIFACT_NAME = 'handoff';

/**
 * Hands work off to another agent (docs/a2a.md, "Hand-offs"): an artifact `handoff` with the
 * hand-off data part (`handoffPart`). Yield it with the step's result, before COMPLETED; the
 * orchestrator adds a step for the named agent or skill (`agent`: a card name; `skill`: a skill
 * id or `<agent>/<skill>`) that depends on this one, so it gets this step's result too, unless the
 * run refuses it (unknown or excluded agent, back along the chain, too many). Several requests
 * travel in one artifact. The `result` artifact is untouched: the answer stays the step's text.
 * (`handoffPart` may also go in the `result` artifact's extra parts, or the final status message.)
 *
 * @example
 * yield result(summary, { sources });
 * yield handoff({ skill: 'web-search', task: 'Find the current G3 price', context: summary });
 */
export function handoff(request: HandoffRequest | readonly HandoffRequest[]): AgentEvent {
  return {
    type: 'artifact',
    artifact: { name: HANDOFF_ARTIFACT_NAME, parts: [handoffPart(request)] },
    lastChunk: true,
  };
}

/**
 * One piece of the `result` artifact's text while the answer is still being written: appended
 * (`append: true`) to the artifact `artifactId`, `lastChunk: false`. Send the pieces of one answer
 * under one id, then {@link resultEnd} with the same id.
 *
 * @example
 * const artifactId = randomUUID();
 * for await (const delta of deltas) yield resultChunk(artifactId, delta);
 * yield resultEnd(artifactId, answer.text, data);
 */
export function resultChunk(artifactId: string, text: string): AgentEvent {
  return {
    type: 'artifact',
    artifact: { artifactId, name: RESULT_ARTIFACT_NAME, parts: [textPart(text)] },
    append: true,
    lastChunk: false,
  };
}

/**
 * The last chunk of a streamed `result` artifact: the whole answer (the text the chunks joined to,
 * and the data part) under the chunks' `artifactId`, with `append: false` so that it replaces the
 * pieces and `lastChunk: true`. The task keeps the same artifact as with {@link result}: one text
 * part, then the data part; a client that joined the chunks already holds the text.
 */
export function resultEnd(artifactId: string, text: string, data?: unknown): AgentEvent {
  return {
    type: 'artifact',
    artifact: {
      artifactId,
      name: RESULT_ARTIFACT_NAME,
      parts: [textPart(text), ...(data === undefined ? [] : [dataPart(data)])],
    },
    append: false,
    lastChunk: true,
  };
}

/**
 * Sends each text delta of `deltas` as a {@link resultChunk} of `artifactId` and returns what the
 * generator returns (the finished answer), for `yield*`. Empty deltas are skipped.
 *
 * @example
 * const artifactId = randomUUID();
 * const answer = yield* resultChunks(artifactId, answerer.stream({ question }));
 * yield resultEnd(artifactId, answer.text, { sources: answer.sources });
 */
export async function* resultChunks<Final>(
  artifactId: string,
  deltas: AsyncGenerator<string, Final, undefined>,
): AsyncGenerator<AgentEvent, Final, undefined> {
  for (;;) {
    const next = await deltas.next();
    if (next.done === true) return next.value;
    if (next.value !== '') yield resultChunk(artifactId, next.value);
  }
}

/** `1 source`, `3 sources`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
