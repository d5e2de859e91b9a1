import type { PlanNode } from '@fleet/a2a';
import type { DependencyOutputs } from './node-outcome';

/** Longest dependency summary quoted in a node's text part, in characters. */
const MAX_QUOTED_SUMMARY = 2000;

/** Options for {@link renderNodeText}. */
export interface RenderNodeTextOptions {
  node: PlanNode;
  dependencyOutputs: DependencyOutputs;
}

/**
 * The text part of a node's message: its task, then a short rendering of what the steps it
 * depends on produced, so an agent that reads only text still gets them (agents that read the
 * data part get them whole under `fleet.dependencyOutputs`).
 *
 * @example
 * renderNodeText({ node, dependencyOutputs: { search: { agent: 'web-agent', summary: 'Found …' } } });
 * // 'Summarise the findings.\n\nResults of earlier steps:\n- Step search (web-agent): Found …'
 */
export function renderNodeText({ node, dependencyOutputs }: RenderNodeTextOptions): string {
  const entries = Object.entries(dependencyOutputs);
  if (entries.length === 0) return node.task;
  const lines = entries.map(([id, output]) => {
    const summary = quote(output.summary);
    // A failed step's summary already reads "Step <id> (<agent>) failed: <reason>".
    return output.partial === true ? `- ${summary}` : `- Step ${id} (${output.agent}): ${summary}`;
  });
  return `${node.task}\n\nResults of earlier steps:\n${lines.join('\n')}`;
}

function quote(summary: string): string {
  const flat = summary.trim();
  return flat.length <= MAX_QUOTED_SUMMARY ? flat : `${flat.slice(0, MAX_QUOTED_SUMMARY)}…`;
}
