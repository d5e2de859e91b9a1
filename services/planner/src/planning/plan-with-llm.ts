import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  planSchema,
  validatePlan,
  type AgentSummary,
  type Plan,
  type PlanRequest,
} from '@fleet/a2a';
import { generateObject, StructuredOutputError, type Clock } from '@fleet/llm';
import type { WithSpanOptions } from '@fleet/telemetry';
import { buildPlanMessages, buildRepairMessages } from './build-plan-prompt';

/** Options for {@link planWithLlm}. */
export interface PlanWithLlmOptions {
  client: OpenAI;
  model: string;
  request: PlanRequest;
  /** @default 0 */
  temperature?: number;
  signal?: AbortSignal;
  tracer?: WithSpanOptions['tracer'];
  /** The clock the prompt's date line reads. @default the system clock */
  clock?: Clock | undefined;
}

/** What the LLM planner achieved: a valid plan, or why there is none. */
export type LlmPlanOutcome =
  | { success: true; plan: Plan; attempts: number }
  | { success: false; reason: string; attempts: number; cause?: unknown };

/** The schema name the model sees in `response_format`. */
const SCHEMA_NAME = 'plan';

/** Schema issues of a structured-output error, as sentences; none when the text was not JSON. */
function schemaIssues(error: StructuredOutputError): string[] {
  const issues = error.details?.['issues'];
  if (!Array.isArray(issues)) return [];
  return issues.map((issue: unknown) => {
    const { path, message } = (issue ?? {}) as { path?: unknown; message?: unknown };
    const where = typeof path === 'string' && path !== '' ? `at ${path}: ` : '';
    return `${where}${typeof message === 'string' ? message : 'invalid'}`;
  });
}

/** Skill ids the agent does not have are dropped: the agent would not know what to do with them. */
function dropUnknownSkills(plan: Plan, agents: readonly AgentSummary[]): Plan {
  const skills = new Map(
    agents.map((agent) => [agent.name, new Set(agent.skills.map((skill) => skill.id))]),
  );
  return {
    ...plan,
    nodes: plan.nodes.map((node) => {
      if (node.skill === undefined || skills.get(node.agent)?.has(node.skill) !== false)
        return node;
      const { skill: _unknown, ...rest } = node;
      return rest;
    }),
  };
}

/** Labels of the planning prompt a model may copy into a task, with what follows them on their line. */
const CONVERSATION_LABEL = /Conversation so far[^:\n]*:[^\n]*?(?=Request to plan:|\n|$)/gi;
const REQUEST_LABEL = /Request to plan:\s*/gi;

/**
 * Tasks are shown to people and sent to agents: a model that copied prompt labels ("Conversation
 * so far: none …", "Request to plan:") into a task has them taken out.
 */
function withoutPromptLabels(plan: Plan): Plan {
  return {
    ...plan,
    nodes: plan.nodes.map((node) => {
      const task = node.task
        .replace(CONVERSATION_LABEL, ' ')
        .replace(REQUEST_LABEL, ' ')
        .replace(/[ \t]{2,}/g, ' ')
        .trim();
      return task === node.task || task === '' ? node : { ...node, task };
    }),
  };
}

/**
 * Plans with LLM structured output (zod `planSchema` through `generateObject`) and checks the plan
 * with `validatePlan` against the available agents. A plan that fails the check, or JSON that does
 * not fit the schema, is sent back ONCE with every problem listed and the rejected answer quoted;
 * a second failure, an answer that is not JSON at all, or a failed LLM call ends with
 * `success: false` and the reason, for the caller to fall back on. An aborted `signal` throws.
 *
 * @example
 * const outcome = await planWithLlm({ client, model: 'gpt-4o-mini', request });
 * if (!outcome.success) logger.warn({ reason: outcome.reason }, 'LLM plan unusable');
 */
export async function planWithLlm({
  client,
  model,
  request,
  temperature = 0,
  signal,
  tracer,
  clock,
}: PlanWithLlmOptions): Promise<LlmPlanOutcome> {
  const agentNames = request.agents.map((agent) => agent.name);
  let messages: ChatCompletionMessageParam[] = buildPlanMessages({ request, clock });
  let attempts = 0;
  let lastErrors: string[] = [];
  while (attempts < 2) {
    attempts++;
    let plan: Plan;
    let raw: string;
    try {
      ({ object: plan, raw } = await generateObject({
        client,
        model,
        schema: planSchema,
        schemaName: SCHEMA_NAME,
        schemaDescription: 'A plan: the DAG of agent steps that answers the request.',
        messages,
        temperature,
        ...(signal ? { signal } : {}),
        ...(tracer ? { tracer } : {}),
      }));
    } catch (error) {
      if (signal?.aborted) throw error;
      if (error instanceof StructuredOutputError) {
        const issues = schemaIssues(error);
        if (issues.length === 0) {
          return {
            success: false,
            reason: `The LLM's answer could not be used: ${error.message}`,
            attempts,
            cause: error,
          };
        }
        lastErrors = issues.map((issue) => `the answer does not fit the plan schema ${issue}`);
        messages = buildRepairMessages({
          previous: messages,
          plan: error.text,
          errors: lastErrors,
          agentNames,
        });
        continue;
      }
      const message = error instanceof Error ? error.message : String(error);
      return { success: false, reason: `The LLM call failed: ${message}`, attempts, cause: error };
    }
    const cleaned = withoutPromptLabels(dropUnknownSkills(plan, request.agents));
    const validation = validatePlan(cleaned, agentNames);
    if (validation.valid) return { success: true, plan: cleaned, attempts };
    lastErrors = validation.errors;
    messages = buildRepairMessages({
      previous: messages,
      plan: raw,
      errors: lastErrors,
      agentNames,
    });
  }
  return {
    success: false,
    reason: `The LLM's plan was still invalid after a second attempt: ${lastErrors.join('; ')}`,
    attempts,
  };
}
