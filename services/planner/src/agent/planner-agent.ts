import { z } from 'zod';
import {
  dataPart,
  partsText,
  planRequestSchema,
  RESULT_ARTIFACT_NAME,
  textPart,
  type Part,
  type PlanRequest,
  type PlanResult,
} from '@fleet/a2a';
import type { AgentContext, AgentEvent, AgentExecute } from '@fleet/a2a/server';
import { validationErrorFromZod } from '@fleet/errors';
import type { Planner } from '../planning';
import { describePlan } from './describe-plan';

/** Options for {@link createPlannerAgent}. */
export interface CreatePlannerAgentOptions {
  planner: Planner;
}

const hasPlanRequest = z.looseObject({ planRequest: z.unknown() });

/** The plan request of a message, or why there is none a planner can use. */
export function readPlanRequest(
  parts: readonly Part[],
): { success: true; request: PlanRequest } | { success: false; reason: string } {
  const data = parts.find((part) => hasPlanRequest.safeParse(part.data).success)?.data;
  if (data === undefined) {
    return {
      success: false,
      reason:
        'The planner needs a data part { planRequest: { request, history, agents, strategy?, validationError? } } beside the text of the request.',
    };
  }
  const parsed = planRequestSchema.safeParse(data);
  if (!parsed.success) {
    const error = validationErrorFromZod(parsed.error, { subject: 'The planRequest data part' });
    return { success: false, reason: error.message };
  }
  const request = parsed.data.planRequest;
  // The data part carries the request; the text part is the fallback for clients that put it there only.
  const text = request.request.trim() === '' ? partsText(parts).trim() : request.request;
  if (text === '') return { success: false, reason: 'The request to plan is empty.' };
  return { success: true, request: { ...request, request: text } };
}

/**
 * The planner as an A2A agent (docs/architecture.md §4–5). Each task: WORKING ("Planning with N
 * agents…"), then the `result` artifact (a text part summarising the plan, a data part with the
 * `PlanResult`), then COMPLETED. A message without a valid `planRequest` data part is REJECTED
 * with the reason; a planning failure (the planner always has its heuristic, so only an
 * unexpected error) is FAILED with the reason. Cancellation stops the LLM call.
 *
 * @example
 * const handler = createA2AHandler({ card, execute: createPlannerAgent({ planner }), store });
 */
export function createPlannerAgent({ planner }: CreatePlannerAgentOptions): AgentExecute {
  return async function* plannerAgent(
    context: AgentContext,
  ): AsyncGenerator<AgentEvent, void, undefined> {
    const input = readPlanRequest(context.message.parts);
    if (!input.success) {
      yield { type: 'status', state: 'TASK_STATE_REJECTED', message: input.reason };
      return;
    }
    const { request } = input;
    const count = request.agents.length;
    yield {
      type: 'status',
      state: 'TASK_STATE_WORKING',
      message: `Planning with ${count} agent${count === 1 ? '' : 's'}…`,
    };
    let result: PlanResult;
    try {
      result = await planner.plan(request, { signal: context.signal });
    } catch (error) {
      if (context.signal.aborted) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      yield { type: 'status', state: 'TASK_STATE_FAILED', message: `Planning failed: ${reason}` };
      return;
    }
    yield {
      type: 'artifact',
      artifact: {
        name: RESULT_ARTIFACT_NAME,
        parts: [textPart(describePlan(result)), dataPart(result)],
      },
      lastChunk: true,
    };
    const steps = result.plan.nodes.length;
    yield {
      type: 'status',
      state: 'TASK_STATE_COMPLETED',
      message: `Planned ${steps} step${steps === 1 ? '' : 's'} (${result.source}).`,
    };
  };
}
