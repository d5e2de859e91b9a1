import type { z } from 'zod';
import {
  ERROR_HTTP_STATUS,
  errorBodySchema,
  FleetError,
  fromErrorBody,
  isConnectFailure,
  isErrorCode,
  networkErrorCode,
  ServiceUnavailableError,
  UpstreamError,
  UpstreamTimeoutError,
  type ErrorCode,
} from '@fleet/errors';
import { RESULT_ARTIFACT_NAME } from '../fleet/conventions';
import { createMessage, dataPart, findData, partsText } from '../schemas/helpers';
import type { Part, Task } from '../schemas/core';
import type { A2AClient } from './a2a-client';

/** undici's own time-outs (headers or body never came), e.g. an A2A client given the global fetch. */
const HEADERS_TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The typed error a FAILED task carries in its status message (`{ error: { code, message } }`). */
export function typedFailure(task: Task): FleetError | undefined {
  const parts: readonly Part[] = task.status.message?.parts ?? [];
  const body = findData(parts, errorBodySchema);
  return body !== undefined && isErrorCode(body.error.code)
    ? fromErrorBody(ERROR_HTTP_STATUS[body.error.code], body)
    : undefined;
}

/** The parts of a task's `result` artifact (`RESULT_ARTIFACT_NAME`); undefined without one. */
export function resultArtifactParts(task: Task): readonly Part[] | undefined {
  return (task.artifacts ?? []).find((candidate) => candidate.name === RESULT_ARTIFACT_NAME)?.parts;
}

/** How {@link createTaskFailures} names the agent a client's commands go to. */
export interface TaskFailureWording {
  /** Who answers, as it starts a sentence: `'The file store'`, `'The RAG agent'`. */
  who: string;
  /**
   * Who answers, in the messages that tell an operator to start it or to fix its token:
   * `'The file store (the RAG agent)'`. @default who
   */
  whoInFull?: string;
  /** The agent's base URL, named in errors. */
  agentUrl: string;
  /** What to do when nothing reached the agent (after `is not reachable at <url>: `). */
  unreachableHint: string;
  /** Who needs the same token when the agent refuses it (after `refused the internal token: `). */
  tokenHint: string;
  /** More explanations by error code, e.g. the agent's PAYLOAD_TOO_LARGE in a caller's terms. */
  explained?: Partial<Record<ErrorCode, (error: FleetError) => FleetError>>;
}

/** One command sent by {@link TaskFailures.send}. */
export interface TaskCommand {
  /** The command's name, in errors (`put`, `list` …). */
  op: string;
  /** The command's data part (`{ files: command }`). */
  data: Record<string, unknown>;
  /** Parts after the data part (the bytes as `raw` file parts). */
  parts?: Part[];
  signal: AbortSignal | undefined;
  timeoutMs: number;
}

/** The A2A failures of one client's commands, in that client's words. */
export interface TaskFailures {
  /**
   * A transport error in the caller's terms: the unreachable agent (503), a refused internal token
   * (503), an agent that did not answer in time (504), a connection broken mid-request (502).
   * Other errors pass unchanged.
   */
  explain(error: unknown): unknown;
  /** The text of a task's status message, or that the agent said nothing. */
  failureMessage(task: Task): string;
  /** The 502 of a command that ended in another state than completed, with the agent's words. */
  ended(task: Task, op: string): UpstreamError;
  /**
   * Sends one command as a blocking `SendMessage` and resolves to its task in whatever state it
   * ended; transport errors are {@link TaskFailures.explain}ed, a message instead of a task is 502.
   */
  send(client: A2AClient, command: TaskCommand): Promise<Task>;
  /** The `result` artifact's data, parsed; a malformed answer is the agent's fault (502). */
  resultData<TSchema extends z.ZodType>(task: Task, schema: TSchema, op: string): z.output<TSchema>;
}

/**
 * The shared reading of the A2A failures of a client whose commands go to one agent (the run
 * files client, the gateway's documents client): each message names the agent in `wording`'s words.
 *
 * @example
 * const failures = createTaskFailures({
 *   who: 'The RAG agent',
 *   agentUrl,
 *   unreachableHint: 'start it, or point RAG_AGENT_URL at it.',
 *   tokenHint: 'the gateway and the agent need the same FLEET_INTERNAL_TOKEN.',
 * });
 * const task = await failures.send(client, { op: 'list', data: { documents: command }, signal, timeoutMs });
 */
export function createTaskFailures({
  who,
  whoInFull = who,
  agentUrl,
  unreachableHint,
  tokenHint,
  explained: more = {},
}: TaskFailureWording): TaskFailures {
  const lowerWho = `${who.charAt(0).toLowerCase()}${who.slice(1)}`;
  const explained: Partial<Record<ErrorCode, (error: FleetError) => FleetError>> = {
    UPSTREAM_UNREACHABLE: (cause) => {
      const code = networkErrorCode(cause);
      if (code !== undefined && HEADERS_TIMEOUT_CODES.has(code)) {
        return new UpstreamTimeoutError(`${who} at ${agentUrl} did not answer in time (${code}).`, {
          cause,
        });
      }
      // No code, or a failed connect: nothing reached the agent.
      if (code === undefined || isConnectFailure(cause)) {
        return new ServiceUnavailableError(
          `${whoInFull} is not reachable at ${agentUrl}: ${unreachableHint}`,
          { cause },
        );
      }
      return new UpstreamError(
        `The connection to ${lowerWho} at ${agentUrl} failed mid-request (${code}).`,
        { status: 502, cause },
      );
    },
    UNAUTHENTICATED: (cause) =>
      new ServiceUnavailableError(`${whoInFull} refused the internal token: ${tokenHint}`, {
        cause,
      }),
    UPSTREAM_TIMEOUT: (cause) =>
      new UpstreamTimeoutError(`${who} at ${agentUrl} did not answer in time.`, { cause }),
    ...more,
  };

  function explain(error: unknown): unknown {
    if (!FleetError.isInstance(error)) return error;
    return explained[error.code]?.(error) ?? error;
  }

  function failureMessage(task: Task): string {
    const text = partsText(task.status.message?.parts ?? []).trim();
    return text === '' ? `${who} failed without saying why.` : text;
  }

  return {
    explain,
    failureMessage,
    ended(task, op) {
      const state = task.status.state.replace('TASK_STATE_', '').toLowerCase();
      return new UpstreamError(`${who}'s ${op} command ended ${state}: ${failureMessage(task)}`, {
        status: 502,
      });
    },
    async send(client, { op, data, parts = [], signal, timeoutMs }) {
      let reply;
      try {
        reply = await client.sendMessage(
          { message: createMessage({ parts: [dataPart(data), ...parts] }) },
          { signal, timeoutMs },
        );
      } catch (error) {
        throw explain(error);
      }
      if (!('status' in reply)) {
        throw new UpstreamError(
          `${who} answered the ${op} command with a message instead of a task.`,
          { status: 502 },
        );
      }
      return reply;
    },
    resultData(task, schema, op) {
      const parts = resultArtifactParts(task);
      const data = parts === undefined ? undefined : findData(parts, schema);
      if (data === undefined) {
        throw new UpstreamError(
          `${who}'s ${op} result has no valid \`${RESULT_ARTIFACT_NAME}\` artifact.`,
          { status: 502 },
        );
      }
      return data;
    },
  };
}
