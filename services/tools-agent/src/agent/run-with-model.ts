import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { AgentContext } from '@fleet/a2a/server';
import { completed, plural, result, working, type AgentEvents } from '@fleet/agent-kit';
import { FleetError, UpstreamError } from '@fleet/errors';
import type { CatalogTool } from '../servers';
import { askApproval } from './ask-approval';
import { checkCall } from './check-call';
import { callModel, modelTools, readModelCalls } from './model-tools';
import type { ToolsTask } from './read-tools-input';
import { reportCalls, runCalls, type CallOutcome } from './run-calls';
import { MAX_CALLS_PER_ROUND, type ToolCall } from './tool-call';
import type { ToolsAgentSettings } from './tools-agent-settings';

/** Longest tool text handed back to the model per call. */
const MAX_TOOL_MESSAGE = 8000;

/** What the model is told about its job. */
export const TOOLS_INSTRUCTIONS = [
  'You carry out one step of a plan by calling tools of MCP servers.',
  'Call the tools the step needs, with arguments that fit their schemas exactly; several calls in one turn are fine.',
  'Never invent arguments the step does not give or imply: if something needed is missing, call no tool and say exactly what is missing.',
  'When the step is done, answer in one or two sentences saying what was done.',
].join('\n');

function userMessage(task: ToolsTask): string {
  const earlier = Object.entries(task.dependencyOutputs)
    .filter(([, output]) => output.partial !== true && output.summary.trim() !== '')
    .map(([nodeId, output]) => `- ${nodeId} (${output.agent}): ${output.summary.slice(0, 4000)}`);
  const context =
    earlier.length === 0 ? '' : `\n\nResults of earlier steps:\n${earlier.join('\n')}`;
  const data =
    task.dataArguments === undefined
      ? ''
      : `\n\nArguments given: ${JSON.stringify(task.dataArguments)}`;
  return `${task.text}${data}${context}`;
}

/** A model's call of a round that passed its checks, with the tool it calls. */
interface ReadyCall {
  id: string;
  call: ToolCall;
  entry: CatalogTool;
}

/**
 * Checks a round's calls read from the model: the ones that may be made, the problems (by call id)
 * to give back to the model, and the last argument problem met. A policy refusal is thrown.
 */
function checkRoundCalls(
  settings: ToolsAgentSettings,
  task: ToolsTask,
  read: ReturnType<typeof readModelCalls>,
): { problems: Map<string, string>; ready: ReadyCall[]; lastProblem: FleetError | undefined } {
  const problems = new Map<string, string>();
  const ready: ReadyCall[] = [];
  let lastProblem: FleetError | undefined;
  for (const entry of read) {
    if ('problem' in entry) {
      problems.set(entry.id, entry.problem);
      continue;
    }
    try {
      checkCall(settings, entry.call, task.toolPolicy);
      ready.push(entry);
    } catch (error) {
      // A policy refusal ends the step; bad arguments go back to the model.
      if (!FleetError.isInstance(error) || error.code === 'PERMISSION_DENIED') throw error;
      lastProblem = error;
      problems.set(entry.id, error.message);
    }
  }
  return { problems, ready, lastProblem };
}

/** The tool messages telling the model that none of a round's calls was made, and why. */
function refusedCallMessages(
  toolCalls: readonly { id: string }[],
  problems: ReadonlyMap<string, string>,
): ChatCompletionMessageParam[] {
  return toolCalls.map((call) => ({
    role: 'tool',
    tool_call_id: call.id,
    content:
      problems.get(call.id) ??
      'Not called: another call of this turn could not be made. Make the calls again, corrected.',
  }));
}

/** The tool messages giving the model the results of a round's calls. */
function madeCallMessages(
  made: readonly CallOutcome[],
  ready: readonly ReadyCall[],
): ChatCompletionMessageParam[] {
  return made.map((outcome, index) => {
    const id = ready[index]?.id ?? '';
    const text =
      outcome.mapped.text !== ''
        ? outcome.mapped.text
        : JSON.stringify(outcome.mapped.data?.data ?? null);
    return { role: 'tool', tool_call_id: id, content: text.slice(0, MAX_TOOL_MESSAGE) };
  });
}

/**
 * A step with a model: it is offered the permitted tools (just the one the plan's skill names,
 * when it names one) and picks tools and arguments with function calling, for at most
 * `maxRounds` model calls. Each round's calls are checked (bad arguments go back to the model to
 * correct); read-only ones are made at once and their results given to the model. A round with a
 * call that needs approval stops the step there: the task waits in TASK_STATE_AUTH_REQUIRED for
 * that round's calls, and after approval the step ends with their result (earlier rounds were
 * reported as progress lines). A model that calls no tool ends the step with its words.
 *
 * @example
 * yield* runWithModel(settings, context, { task, offered, llm });
 */
export async function* runWithModel(
  settings: ToolsAgentSettings,
  context: AgentContext,
  {
    task,
    offered,
    llm,
  }: {
    task: ToolsTask;
    offered: readonly CatalogTool[];
    llm: NonNullable<ToolsAgentSettings['llm']>;
  },
): AgentEvents {
  const { definitions, byName } = modelTools(offered);
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: TOOLS_INSTRUCTIONS },
    { role: 'user', content: userMessage(task) },
  ];
  const outcomes: CallOutcome[] = [];
  let lastProblem: FleetError | undefined;
  for (let round = 1; round <= settings.maxRounds; round += 1) {
    yield working(round === 1 ? 'Choosing the tools to call…' : 'Choosing the next calls…', {
      stage: 'choosing',
    });
    const completion = await callModel({
      llm,
      messages,
      tools: definitions,
      signal: context.signal,
      tracer: settings.tracer,
    });
    const answer = completion.content.trim();
    if (completion.toolCalls.length === 0) {
      if (outcomes.length === 0) {
        yield result(answer === '' ? 'The model called no tool and said nothing.' : answer);
        yield completed(answer === '' ? 'No tool was called.' : answer.slice(0, 1000));
        return;
      }
      yield reportCalls(outcomes);
      yield completed(
        answer === '' ? `Made ${plural(outcomes.length, 'call')}.` : answer.slice(0, 1000),
      );
      return;
    }
    messages.push({
      role: 'assistant',
      content: answer === '' ? null : answer,
      tool_calls: completion.toolCalls,
    });
    const read = readModelCalls(completion.toolCalls.slice(0, MAX_CALLS_PER_ROUND), byName);
    const checked = checkRoundCalls(settings, task, read);
    lastProblem = checked.lastProblem ?? lastProblem;
    const { problems, ready } = checked;
    if (problems.size > 0 || read.length < completion.toolCalls.length) {
      messages.push(...refusedCallMessages(completion.toolCalls, problems));
      continue;
    }
    const calls = ready.map(({ call }) => call);
    const entries = ready.map(({ entry }) => entry);
    if (entries.some((entry) => entry.approval.required)) {
      const expiresAt = new Date(settings.now().getTime() + settings.approvalTtlMs).toISOString();
      yield askApproval({
        pending: { calls, task: task.text, expiresAt, revision: 1 },
        tools: entries,
      });
      return;
    }
    const made = yield* runCalls(settings, context, { calls, entries, approved: false });
    outcomes.push(...made);
    messages.push(...madeCallMessages(made, ready));
  }
  if (outcomes.length > 0) {
    yield reportCalls(outcomes);
    yield completed(
      `Made ${plural(outcomes.length, 'call')}; the model's rounds (TOOLS_AGENT_MAX_ROUNDS) ran out.`,
    );
    return;
  }
  throw (
    lastProblem ??
    new UpstreamError(
      `The model made no call that could be sent in ${plural(settings.maxRounds, 'round')} (TOOLS_AGENT_MAX_ROUNDS).`,
      { status: 502 },
    )
  );
}
