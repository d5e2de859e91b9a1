/**
 * Plans and agents the orchestration e2e tests script: a plan the scripted planner model answers
 * with, and the web-then-mail pair whose mail step asks for approval.
 */
import type { Plan } from '@fleet/a2a';
import {
  startScriptedOpenAI,
  type ScriptedAgentOptions,
  type ScriptedOpenAI,
} from '@fleet/testing';

/** A plan of these nodes, each with the task "<id>: the <agent> part" unless given. */
export function scriptedPlan(nodes: { id: string; agent: string; dependsOn?: string[] }[]): Plan {
  return {
    nodes: nodes.map((node) => ({
      task: `${node.id}: the ${node.agent} part`,
      dependsOn: [],
      ...node,
    })),
    rationale: 'scripted plan',
    confidence: 0.9,
  };
}

/** A web agent (50 ms) and a mail agent whose every task asks for a high-risk send approval. */
export function webThenMailAgents(): Omit<ScriptedAgentOptions, 'internalToken'>[] {
  return [
    { name: 'web', skills: [{ id: 'search', tags: ['web'] }], reply: { latencyMs: 50 } },
    {
      name: 'mail',
      skills: [{ id: 'send', tags: ['mail'] }],
      reply: {
        approval: {
          action: 'send-mail',
          summary: 'Send the summary to bob@example.com',
          risk: 'high',
        },
      },
    },
  ];
}

/** The scripted model of an orchestrated e2e run, and the plan it answers the planner with. */
export interface PlanningModel {
  llm: ScriptedOpenAI;
  /** The plan the planner gets from now on (undefined: the model's empty answer). */
  plan: Plan | undefined;
}

/**
 * A scripted model for orchestrated runs: the planner's request gets {@link PlanningModel.plan},
 * the orchestrator's instruction classifier `enhance`, and a request without a JSON schema (the
 * composer, an agent) the text `composed`.
 *
 * @example
 * const model = await startPlanningModel('The summary went to Bob.');
 * model.plan = scriptedPlan([{ id: 'send', agent: 'mail' }]);
 */
export async function startPlanningModel(composed: string): Promise<PlanningModel> {
  const model: { llm?: ScriptedOpenAI; plan: Plan | undefined } = { plan: undefined };
  model.llm = await startScriptedOpenAI({
    respond: (_request, context) => {
      if (context.jsonSchema === undefined) return { content: composed };
      if (context.lastUserMessage.includes('instructions')) {
        return { json: { mode: 'enhance', effectiveTask: '' } };
      }
      return model.plan === undefined ? {} : { json: model.plan };
    },
  });
  return model as PlanningModel;
}
