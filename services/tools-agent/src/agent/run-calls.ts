import type { Part } from '@fleet/a2a';
import type { AgentContext, AgentEvent } from '@fleet/a2a/server';
import { result, working } from '@fleet/agent-kit';
import { ConflictError, ServiceUnavailableError } from '@fleet/errors';
import type { CatalogTool } from '../servers';
import { callTool } from './call-tool';
import { elicitThroughTask } from './elicitation';
import { mapToolResult, type MappedResult } from './map-result';
import { callKey, callName, type ToolCall } from './tool-call';
import type { ToolsAgentSettings } from './tools-agent-settings';

/** A call that was made, and its result as parts. */
export interface CallOutcome {
  call: ToolCall;
  entry: CatalogTool;
  mapped: MappedResult;
}

/**
 * Makes checked calls one after the other. A call made in a continuation (an approved one) is
 * claimed first with `context.claimOnce` (key: server, tool, digest of the arguments), so an
 * approval that arrives twice, or a replayed continuation, never makes it twice. A tool's error or
 * a result that misses its output schema ends the step (thrown).
 *
 * @example
 * const outcomes = yield* runCalls(settings, context, { calls, entries, approved: true });
 */
export async function* runCalls(
  settings: Pick<ToolsAgentSettings, 'catalog' | 'checker' | 'questions'>,
  context: AgentContext,
  {
    calls,
    entries,
    approved,
  }: { calls: readonly ToolCall[]; entries: readonly CatalogTool[]; approved: boolean },
): AsyncGenerator<AgentEvent, CallOutcome[], undefined> {
  const outcomes: CallOutcome[] = [];
  for (const [index, call] of calls.entries()) {
    const entry = entries[index];
    if (entry === undefined) continue;
    const name = callName(call);
    const connection = settings.catalog.connection(call.server);
    if (connection === undefined) {
      throw new ServiceUnavailableError(`The MCP server "${call.server}" is not configured.`);
    }
    // A call a person approved is claimed first: a decision delivered twice, or a replayed
    // continuation, finds the claim. A first message's call needs none: a task's first message is
    // taken once (a re-sent one is a duplicate the A2A server answers without running it).
    if ((approved || context.isContinuation) && !(await context.claimOnce(callKey(call)))) {
      throw new ConflictError(
        `${name} was already called with these arguments for this task (the approval arrived twice); it is not called again.`,
        { details: { tool: name } },
      );
    }
    yield working(`Calling ${name}…`, { stage: 'calling' });
    const answer = yield* callTool({
      context,
      connection,
      entry,
      call,
      onElicitation: elicitThroughTask(settings.questions, context.task.id, entry.skillId),
    });
    outcomes.push({
      call,
      entry,
      mapped: mapToolResult({ entry, result: answer, checker: settings.checker }),
    });
  }
  return outcomes;
}

/** The artifact text of one call: its text, or what it returned instead. */
function outcomeText({ call, mapped }: CallOutcome): string {
  if (mapped.text.trim() !== '') return mapped.text;
  if (mapped.data !== undefined) return JSON.stringify(mapped.data.data, null, 2).slice(0, 16_000);
  if (mapped.files.length > 0) return `${callName(call)} returned ${mapped.files.length} file(s).`;
  return `${callName(call)} returned nothing.`;
}

/**
 * The `result` artifact of the calls a step made: one text part (each call's text; with several
 * calls each under its `<server>/<tool>`), then each call's structured content as a data part and
 * its files as file parts.
 *
 * @example
 * yield reportCalls(outcomes);
 */
export function reportCalls(outcomes: readonly CallOutcome[]): AgentEvent {
  const text =
    outcomes.length === 1 && outcomes[0] !== undefined
      ? outcomeText(outcomes[0])
      : outcomes
          .map((outcome) => `${callName(outcome.call)}:\n${outcomeText(outcome)}`)
          .join('\n\n');
  const dataParts = outcomes.flatMap((outcome) =>
    outcome.mapped.data === undefined ? [] : [outcome.mapped.data],
  );
  const files: Part[] = outcomes.flatMap((outcome) => outcome.mapped.files);
  return result(text, undefined, [...dataParts, ...files]);
}
