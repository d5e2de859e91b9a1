import type { AgentContext, AgentEvent } from '@fleet/a2a/server';
import { working } from '@fleet/agent-kit';
import {
  McpProtocolError,
  McpServerUnavailableError,
  McpTimeoutError,
  type CallToolResult,
  type McpConnection,
  type McpProgress,
} from '@fleet/mcp';
import type { CatalogTool } from '../servers';
import type { ToolCall } from './tool-call';
import { ToolOutcomeUnknownError } from './tool-errors';

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

function progressLine(name: string, { progress, total, message }: McpProgress): AgentEvent {
  const amount = total === undefined ? `${progress}` : `${progress}/${total}`;
  const said = message === undefined ? '' : `: ${message.slice(0, 300)}`;
  return {
    type: 'status',
    state: 'TASK_STATE_WORKING',
    message: `${name} progress ${amount}${said}`,
    progressLine: true,
  };
}

/**
 * Runs `start` and yields its progress notifications as WORKING progress lines while it runs;
 * notifications that arrive faster than they are sent are merged (only the latest is sent).
 */
async function* withProgress<T>(
  name: string,
  start: (onProgress: (progress: McpProgress) => void) => Promise<T>,
): AsyncGenerator<AgentEvent, T, undefined> {
  let latest: McpProgress | undefined;
  let wake: (() => void) | undefined;
  const settled: Promise<Settled<T>> = start((progress) => {
    latest = progress;
    wake?.();
  }).then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
  for (;;) {
    if (latest !== undefined) {
      const line = progressLine(name, latest);
      latest = undefined;
      yield line;
      continue;
    }
    const next = await Promise.race([
      settled,
      new Promise<'progress'>((resolve) => {
        wake = () => resolve('progress');
      }),
    ]);
    wake = undefined;
    if (next === 'progress') continue;
    if (next.ok) return next.value;
    throw next.error;
  }
}

/** Errors after which a sent call may or may not have been carried out. */
function outcomeUnknown(error: unknown): boolean {
  return (
    error instanceof McpServerUnavailableError ||
    error instanceof McpTimeoutError ||
    error instanceof McpProtocolError
  );
}

/**
 * Sends one checked call to its server, reporting progress as WORKING lines. The server is
 * connected first, so a server that cannot be started fails before anything is sent. After the
 * call was sent, a server that goes away is handled by what the tool says of itself: a read-only
 * or idempotent tool is called once more; any other is never called again by the agent — the step
 * fails saying the outcome is unknown ({@link ToolOutcomeUnknownError}), as it does after a
 * time-out or a garbled answer.
 *
 * @example
 * const result = yield* callTool({ context, connection, entry, call });
 */
export async function* callTool({
  context,
  connection,
  entry,
  call,
}: {
  context: AgentContext;
  connection: McpConnection;
  entry: CatalogTool;
  call: ToolCall;
}): AsyncGenerator<AgentEvent, CallToolResult, undefined> {
  const { hints } = entry.tool;
  const repeatable = hints.readOnly || hints.idempotent;
  for (let attempt = 1; ; attempt += 1) {
    await connection.connect();
    try {
      return yield* withProgress(entry.skillId, (onProgress) =>
        connection.callTool(call.tool, call.arguments, { signal: context.signal, onProgress }),
      );
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (error instanceof McpServerUnavailableError && repeatable && attempt === 1) {
        yield working(
          `The MCP server "${call.server}" went away during the call; calling ${entry.skillId} once more (it is ${hints.readOnly ? 'read-only' : 'idempotent'}).`,
        );
        continue;
      }
      if (!repeatable && outcomeUnknown(error)) {
        const why = error instanceof Error ? error.message : String(error);
        throw new ToolOutcomeUnknownError(
          `${entry.skillId} was sent, but its outcome is unknown: ${why} The tool is neither read-only nor idempotent, so it is not called again; check whether it took effect before asking again.`,
          { cause: error, details: { tool: entry.skillId } },
        );
      }
      throw error;
    }
  }
}
