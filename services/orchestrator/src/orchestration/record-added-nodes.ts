import type { PlanNode } from '@fleet/a2a';
import type { SessionWriter } from './session-writer';

/**
 * Records nodes added to the running plan (a hand-off, a re-plan) in one session write: each in
 * the session's plan, and `pending` among its nodes. A change applied twice adds each node once.
 *
 * @example
 * recordAddedNodes(run.writer, [node]);
 */
export function recordAddedNodes(writer: SessionWriter, nodes: readonly PlanNode[]): void {
  writer.record((draft) => {
    if (draft.plan === undefined) return;
    for (const node of nodes) {
      if (!draft.plan.nodes.some((entry) => entry.id === node.id)) draft.plan.nodes.push(node);
      draft.nodes[node.id] ??= { agent: node.agent, state: 'pending', attempts: 0 };
    }
  });
}
