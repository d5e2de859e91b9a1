import type { PlanNode, PlanResult } from '@fleet/a2a';

/** Groups nodes into stages: a node's stage is one past the latest stage of its dependencies. */
function stages(nodes: readonly PlanNode[]): PlanNode[][] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const depth = new Map<string, number>();
  const depthOf = (node: PlanNode, guard: number): number => {
    const known = depth.get(node.id);
    if (known !== undefined) return known;
    let value = 0;
    if (guard < nodes.length) {
      for (const id of node.dependsOn) {
        const parent = byId.get(id);
        if (parent) value = Math.max(value, depthOf(parent, guard + 1) + 1);
      }
    }
    depth.set(node.id, value);
    return value;
  };
  const grouped: PlanNode[][] = [];
  for (const node of nodes) {
    const level = depthOf(node, 0);
    (grouped[level] ??= []).push(node);
  }
  return grouped.filter((stage) => stage.length > 0);
}

function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
}

/**
 * The one-paragraph summary a person reads next to the plan (the text part of the planner's
 * `result` artifact): how many steps, in which order, by whom, who planned it and why.
 *
 * @example
 * describePlan(result);
 * // 'A 2-step plan from the LLM (confidence 0.90): first policy (rag-agent), then email (mail-agent). Look the policy up, then send it.'
 */
export function describePlan(result: PlanResult): string {
  const { plan, source, attempts, fallbackReason } = result;
  const by = source === 'llm' ? 'the LLM' : 'the heuristic planner';
  const tries = source === 'llm' && attempts > 1 ? ` after ${attempts} attempts` : '';
  const confidence = plan.confidence.toFixed(2);
  const why = plan.rationale.trim();
  const fallback = source === 'heuristic' && fallbackReason ? ` ${fallbackReason}` : '';
  if (plan.nodes.length === 0) {
    return `No steps are needed or possible (plan from ${by}, confidence ${confidence}). ${why}${fallback}`.trim();
  }
  const order = stages(plan.nodes).map((stage, index) => {
    const steps = listNames(stage.map((node) => `${node.id} (${node.agent})`));
    const together = stage.length > 1 ? ' in parallel' : '';
    return `${index === 0 ? 'first' : 'then'} ${steps}${together}`;
  });
  const count = plan.nodes.length === 1 ? 'A 1-step plan' : `A ${plan.nodes.length}-step plan`;
  return `${count} from ${by}${tries} (confidence ${confidence}): ${order.join(', ')}. ${why}${fallback}`.trim();
}
