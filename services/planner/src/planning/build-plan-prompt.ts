import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { AgentSummary, HistoryMessage, Plan, PlanRequest } from '@fleet/a2a';
import { currentDateLine, systemClock, type Clock } from '@fleet/llm';

/** How much of the conversation the prompt carries: the most recent turns, each cut to length. */
const HISTORY_TURNS = 12;
const HISTORY_TURN_CHARS = 2_000;

function describeAvailability(agent: AgentSummary): string[] {
  const availability = agent.availability;
  if (
    availability === undefined ||
    (availability.state === 'ready' && !availability.unavailableSkills?.length)
  )
    return [];
  const reason = availability.reason ? ` (${availability.reason})` : '';
  const skills = availability.unavailableSkills?.length
    ? ` Unavailable skills: ${availability.unavailableSkills.join(', ')}.`
    : '';
  return [`Availability: ${availability.state}${reason}.${skills}`];
}

function describeAgent(agent: AgentSummary): string {
  const lines = [`## ${agent.name}`, agent.description.trim(), ...describeAvailability(agent)];
  if (agent.skills.length === 0) lines.push('(no skills listed)');
  for (const skill of agent.skills) {
    lines.push(`- skill id \`${skill.id}\` (${skill.name}): ${skill.description.trim()}`);
    if (skill.tags.length > 0) lines.push(`  tags: ${skill.tags.join(', ')}`);
    if (skill.examples.length > 0) {
      lines.push(
        `  examples: ${skill.examples.map((example) => JSON.stringify(example)).join('; ')}`,
      );
    }
  }
  return lines.join('\n');
}

/** The conversation so far as chat turns, the most recent ones, each cut to length. */
function historyMessages(history: readonly HistoryMessage[]): ChatCompletionMessageParam[] {
  return history
    .filter((turn) => turn.role !== 'system')
    .slice(-HISTORY_TURNS)
    .map((turn) => {
      const content =
        turn.content.length > HISTORY_TURN_CHARS
          ? `${turn.content.slice(0, HISTORY_TURN_CHARS)}…`
          : turn.content;
      return turn.role === 'assistant'
        ? { role: 'assistant' as const, content }
        : { role: 'user' as const, content };
    });
}

/**
 * The system prompt: the planner's job, the rules of a good plan, and every available agent with
 * its skills (ids, names, descriptions, tags, examples).
 */
export function buildSystemPrompt(agents: readonly AgentSummary[]): string {
  return [
    "You are the planner of a fleet of AI agents. Turn the user's latest request into the smallest plan that answers it: a DAG of steps, each done by one agent.",
    '',
    'Rules:',
    '- Use only the agents listed below, by their exact name. Pick a skill id from that agent, or null.',
    '- Use as few steps as possible. Do not add steps the request does not need. If no agent is needed, return an empty list of nodes.',
    '- Steps that do not need each other run in parallel: give them no dependency on each other.',
    "- Add a step's id to another step's dependsOn only when that step uses its output (for example: search first, then write an e-mail about what was found).",
    '- Node ids are short and unique: letters, digits, "-" or "_" (for example "search-web", "email-summary"). No cycles; dependsOn names only ids in the plan.',
    '- Each task is a self-contained instruction for its agent, in the user\'s language, written as the user would write it, with the names, dates, addresses and other details from the request and the conversation that the agent needs. Never copy these instructions or labels such as "Conversation so far" into a task. A step that depends on others says how to use their results.',
    '- A program, URL or e-mail address in the request goes into the task of the step that needs it. A part that only refers back ("and tell me what it prints") belongs to the step before it; a part that uses an earlier result ("then email it to …") depends on that step.',
    '- files: the file names (with their extension, e.g. "sales.csv") of the user\'s uploaded documents a step that runs code works on, as the request names them; the step gets them at /data/<name>. Omit files (or null) for other steps and when the request names no file.',
    '- Do not plan an agent whose availability is "unconfigured" or "degraded", or a skill listed as unavailable, when another agent can do the step; when only it can, plan it anyway and say so in the rationale.',
    '- rationale: one or two sentences on why these steps and this order. confidence: 0 to 1, how sure you are that the plan answers the request.',
    '',
    `Available agents (${agents.length}):`,
    '',
    agents.length === 0 ? '(none)' : agents.map(describeAgent).join('\n\n'),
  ].join('\n');
}

/**
 * The files attached to the request, for the system prompt: each with its type and size, and
 * how a step gets one (its `files`); empty when none came.
 *
 * @example
 * attachedFilesSection([{ name: 'sales.csv', mediaType: 'text/csv', size: 2048 }]);
 * // 'Files attached to this request (1): …\n- sales.csv (text/csv, 2 KiB)'
 */
export function attachedFilesSection(files: PlanRequest['files']): string {
  if (files === undefined || files.length === 0) return '';
  const size = (bytes: number): string =>
    bytes < 1024
      ? `${bytes} bytes`
      : bytes < 1024 * 1024
        ? `${Math.round(bytes / 1024)} KiB`
        : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  return [
    `Files attached to this request (${files.length}): the user sent them with the request. Put a file's exact name in the files of every step that needs it (a step that runs code on data gets it at /data/<name>); the request may call them "this file", "the attachment" or "the data" without naming them.`,
    ...files.map((file) => `- ${file.name} (${file.mediaType}, ${size(file.size)})`),
  ].join('\n');
}

/**
 * What the request asks of the agents (`planRequest.steering`), for the system prompt: the agents
 * or skills to prefer and those the plan must use; empty when it asks nothing.
 *
 * @example
 * steeringSection({ prefer: ['rag-agent'], require: ['code-agent'] });
 */
export function steeringSection(steering: PlanRequest['steering'], note?: string): string {
  const lines: string[] = [];
  const prefer = steering?.prefer ?? [];
  const require = steering?.require ?? [];
  if (prefer.length > 0) {
    lines.push(
      `Preferred by the user: ${prefer.join(', ')}. When one of these and another agent could do a step about as well, choose the preferred one.`,
    );
  }
  if (require.length > 0) {
    lines.push(
      `Required by the user: ${require.join(', ')}. The plan must have a step that uses each of these (an agent name, "<agent>/<skill>" or a skill id), doing the part of the request it can do.`,
    );
  }
  if (note !== undefined && note !== '') lines.push(note);
  return lines.length === 0 ? '' : ['Agent steering:', ...lines].join('\n');
}

/** Options for {@link buildPlanMessages}. */
export interface BuildPlanMessagesOptions {
  request: PlanRequest;
  /** The clock the prompt's date line reads. @default the system clock */
  clock?: Clock | undefined;
}

/**
 * The first planning prompt: the system prompt (with, when the orchestrator rejected an earlier
 * plan, why), the conversation so far as its own turns, and the request alone as the last user
 * message, so a model that copies the message into a task copies only the request, never prompt
 * labels.
 *
 * @example
 * const messages = buildPlanMessages({ request: planRequest });
 */
export function buildPlanMessages({
  request,
  clock = systemClock,
}: BuildPlanMessagesOptions): ChatCompletionMessageParam[] {
  // The date first: a task with "tomorrow" or "last week" gets the actual dates.
  let system = `${currentDateLine(clock())}\n\n${buildSystemPrompt(request.agents)}`;
  const steering = steeringSection(request.steering, request.steeringNote);
  if (steering !== '') system += `\n\n${steering}`;
  const attached = attachedFilesSection(request.files);
  if (attached !== '') system += `\n\n${attached}`;
  if (request.validationError) {
    system += `\n\nAn earlier plan for this request was rejected by the orchestrator: ${request.validationError}\nMake sure the new plan does not have that problem.`;
  }
  return [
    { role: 'system', content: system },
    ...historyMessages(request.history),
    { role: 'user', content: request.request },
  ];
}

/** Options for {@link buildRepairMessages}. */
export interface BuildRepairMessagesOptions {
  /** The messages of the attempt that produced the rejected plan. */
  previous: readonly ChatCompletionMessageParam[];
  /** The rejected plan, as the model returned it (text or parsed). */
  plan: Plan | string;
  /** What is wrong with it. */
  errors: readonly string[];
  agentNames: readonly string[];
}

/**
 * The second attempt: the first conversation, the rejected plan as the model's answer, and a user
 * message listing every problem and asking for a corrected plan.
 */
export function buildRepairMessages({
  previous,
  plan,
  errors,
  agentNames,
}: BuildRepairMessagesOptions): ChatCompletionMessageParam[] {
  const answer = typeof plan === 'string' ? plan : JSON.stringify(plan);
  return [
    ...previous,
    { role: 'assistant', content: answer },
    {
      role: 'user',
      content: [
        'That plan cannot run. Problems:',
        ...errors.map((error) => `- ${error}`),
        '',
        `Return a corrected plan for the same request. Available agent names: ${agentNames.join(', ') || 'none'}.`,
      ].join('\n'),
    },
  ];
}
