import type { NodeInput } from '@fleet/a2a';

/** One earlier step's answer, for a prompt: `rag-agent-1 (rag-agent)` and what it said. */
export interface DependencyContext {
  label: string;
  summary: string;
}

/**
 * The answers of the plan steps this node depends on, in the order the plan lists them. Steps that
 * failed (partial) or said nothing are left out.
 *
 * @example
 * dependencyContext(input.node); // [{ label: 'rag-1 (rag-agent)', summary: 'The budget is …' }]
 */
export function dependencyContext(node: NodeInput['fleet'] | undefined): DependencyContext[] {
  if (node === undefined) return [];
  return Object.entries(node.dependencyOutputs).flatMap(([nodeId, output]) =>
    output.partial === true || output.summary.trim() === ''
      ? []
      : [{ label: `${nodeId} (${output.agent})`, summary: output.summary }],
  );
}
