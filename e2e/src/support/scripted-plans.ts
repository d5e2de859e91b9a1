/**
 * Plans and agents the orchestration e2e tests script: a plan the scripted planner model answers
 * with, and the web-then-mail pair whose mail step asks for approval.
 */
import type { Plan } from '@fleet/a2a';
import type { ScriptedAgentOptions } from '@fleet/testing';

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
