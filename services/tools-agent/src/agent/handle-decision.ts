import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ApprovalDecision } from '@fleet/a2a';
import type { AgentContext } from '@fleet/a2a/server';
import { completed, plural, rejected, working, type AgentEvents } from '@fleet/agent-kit';
import { PermissionDeniedError, UpstreamError } from '@fleet/errors';
import { getActiveSpan, setSessionAttributes } from '@fleet/telemetry';
import { callsPreview } from './ask-approval';
import { checkCall } from './check-call';
import { callModel, modelTools, readModelCalls } from './model-tools';
import { proposeCalls } from './propose-calls';
import { firstTask, type ToolsTask } from './read-tools-input';
import { reportCalls, runCalls } from './run-calls';
import { TOOLS_INSTRUCTIONS } from './run-with-model';
import {
  callName,
  latestPendingCalls,
  sameCalls,
  type PendingToolCalls,
  type ToolCall,
} from './tool-call';
import type { ToolsAgentSettings } from './tools-agent-settings';

/** Why the pending calls may not be made: denied, or approved too late; undefined when they may. */
function refusal(
  settings: ToolsAgentSettings,
  pending: PendingToolCalls,
  decision: ApprovalDecision,
): PermissionDeniedError | undefined {
  if (decision.decision === 'deny') {
    const why = decision.instructions?.trim() ? decision.instructions.trim() : 'no reason given';
    return new PermissionDeniedError(`Denied: ${why}. Nothing was sent to the MCP server.`);
  }
  if (settings.now().getTime() > Date.parse(pending.expiresAt)) {
    return new PermissionDeniedError(
      `The approval came after the request expired (${pending.expiresAt}); nothing was sent to the MCP server. Ask again to get a fresh approval request.`,
    );
  }
  return undefined;
}

/** The calls the model makes of the pending calls' tools, revised with a person's instructions. */
async function revise(
  settings: ToolsAgentSettings,
  context: AgentContext,
  {
    pending,
    instructions,
    llm,
  }: {
    pending: PendingToolCalls;
    instructions: string;
    llm: NonNullable<ToolsAgentSettings['llm']>;
  },
): Promise<ToolCall[]> {
  const entries = pending.calls.map((call) => checkCall(settings, call, undefined));
  const { definitions, byName } = modelTools(entries);
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: TOOLS_INSTRUCTIONS },
    {
      role: 'user',
      content: `Step: ${pending.task}\n\nThese calls were proposed:\n${callsPreview(pending)}\n\nA person reviewing them said: ${instructions}\n\nMake the calls again, with the arguments changed as the person says and nothing else changed.`,
    },
  ];
  const completion = await callModel({
    llm,
    messages,
    tools: definitions,
    signal: context.signal,
    tracer: settings.tracer,
  });
  const calls: ToolCall[] = [];
  for (const read of readModelCalls(completion.toolCalls, byName)) {
    if ('problem' in read)
      throw new UpstreamError(`The model's revised call is unusable: ${read.problem}`, {
        status: 502,
      });
    calls.push(read.call);
  }
  if (calls.length === 0) {
    throw new UpstreamError(
      `The model made no call after the instructions${completion.content.trim() === '' ? '' : `: ${completion.content.trim().slice(0, 500)}`}. Nothing was sent to the MCP server.`,
      { status: 502 },
    );
  }
  return calls;
}

/**
 * The continuation `{ approvalDecision }` of a task waiting for approval: `deny` (or an expired
 * approval) ends it REJECTED and sends nothing; `approve` makes exactly the pending calls, each
 * claimed once (`runCalls`), after checking again that their tools are offered and permitted.
 * Instructions with the approval: with a model, it revises the arguments, and changed calls need
 * a new approval; offline they cannot change anything and the calls are made as approved.
 *
 * @example
 * yield* handleDecision(settings, context, input.decision);
 */
export async function* handleDecision(
  settings: ToolsAgentSettings,
  context: AgentContext,
  decision: ApprovalDecision,
): AgentEvents {
  const history = context.task.history ?? [];
  const pending = latestPendingCalls(history);
  if (pending === undefined) {
    yield rejected(
      'This task has no tool call waiting for approval, so there is nothing to decide.',
    );
    return;
  }
  const task: ToolsTask = firstTask(history) ?? {
    text: pending.task,
    skill: undefined,
    toolPolicy: undefined,
    dataArguments: undefined,
    dependencyOutputs: {},
    sessionId: undefined,
  };
  setSessionAttributes(getActiveSpan(), { sessionId: task.sessionId });
  const refusedBecause = refusal(settings, pending, decision);
  if (refusedBecause !== undefined) throw refusedBecause;
  const instructions = decision.instructions?.trim() ?? '';
  if (instructions !== '' && settings.llm !== undefined) {
    yield working('Revising the calls with the instructions…');
    const revised = await revise(settings, context, { pending, instructions, llm: settings.llm });
    if (!sameCalls(revised, pending.calls)) {
      // Changed arguments need a new approval: the person approves what will actually be sent.
      yield* proposeCalls(settings, context, {
        task,
        calls: revised,
        revision: pending.revision + 1,
      });
      return;
    }
  } else if (instructions !== '') {
    yield working(
      'Offline, instructions cannot change the arguments: calling exactly as approved.',
    );
  }
  const entries = pending.calls.map((call) => checkCall(settings, call, task.toolPolicy));
  const outcomes = yield* runCalls(settings, context, {
    calls: pending.calls,
    entries,
    approved: true,
  });
  yield reportCalls(outcomes);
  yield completed(
    `Called ${outcomes.map((outcome) => callName(outcome.call)).join(', ')} after approval (${plural(outcomes.length, 'call')}).`,
  );
}
