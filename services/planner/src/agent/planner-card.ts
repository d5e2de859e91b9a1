import { type AgentCard } from '@fleet/a2a';
import { buildAgentCard } from '@fleet/a2a/server';

/** The planner's version, as its Agent Card states it. */
export const PLANNER_VERSION = '0.1.0';

/** The planner's one skill. */
export const PLAN_SKILL_ID = 'plan';

/** Options for {@link buildPlannerCard}. */
export interface BuildPlannerCardOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8082`. */
  url: string;
  /** Declares the fleet's bearer scheme; set when `/a2a` needs FLEET_INTERNAL_TOKEN. @default true */
  internalToken?: boolean;
}

/**
 * The planner's Agent Card: name `planner`, streaming, one skill `plan` (tags planning, dag) and
 * the internal-token security scheme.
 *
 * @example
 * const card = buildPlannerCard({ url: 'http://127.0.0.1:8082' });
 */
export function buildPlannerCard({
  url,
  internalToken = true,
}: BuildPlannerCardOptions): AgentCard {
  return buildAgentCard({
    name: 'planner',
    description:
      "Turns a request, the conversation so far and the available agents' cards into a validated plan: a DAG of agent steps, parallel where they are independent. Uses LLM structured output with one repair round, and a keyword heuristic offline or as the fallback.",
    version: PLANNER_VERSION,
    url,
    streaming: true,
    internalToken,
    skills: [
      {
        id: PLAN_SKILL_ID,
        name: 'Plan',
        description:
          'Send a text part with the request and a data part { planRequest: { request, history, agents, strategy?, validationError? } }. Answers with the artifact "result": a text part summarising the plan and a data part { plan: { nodes: [{ id, agent, skill?, task, dependsOn }], rationale, confidence }, source, attempts, fallbackReason? }.',
        tags: ['planning', 'dag'],
        examples: [
          'search the web for X and look up our internal docs on Y',
          'find X in our documents, then email a summary to bob@example.com',
        ],
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['text/plain', 'application/json'],
      },
    ],
  });
}
