import type { Plan } from '@fleet/a2a';

/** Longest plan summary, in characters. */
const MAX_SUMMARY = 300;

/**
 * A plan in one sentence a person can decide on (the plan approval's `summary`).
 *
 * @example
 * summarisePlan(plan); // 'Run 2 steps with web-agent and writer: search the web, then write it up.'
 */
export function summarisePlan(plan: Plan): string {
  const count = plan.nodes.length;
  if (count === 0) return 'Run no steps: the plan is empty.';
  const agents = [...new Set(plan.nodes.map((node) => node.agent))];
  const names =
    agents.length === 1
      ? agents[0]
      : `${agents.slice(0, -1).join(', ')} and ${agents[agents.length - 1]}`;
  const rationale = plan.rationale.trim().replace(/[.\s]+$/, '');
  const sentence = `Run ${count} step${count === 1 ? '' : 's'} with ${names}${rationale === '' ? '' : `: ${rationale}`}`;
  return `${sentence.length <= MAX_SUMMARY ? sentence : `${sentence.slice(0, MAX_SUMMARY)}…`}.`;
}

/**
 * The plan's steps, one numbered line each (the plan approval's `preview`).
 *
 * @example
 * previewPlan(plan);
 * // '1. search (web-agent): Find the capital of France\n2. write (writer, after search): Write it up'
 */
export function previewPlan(plan: Plan): string {
  return plan.nodes
    .map((node, index) => {
      const after = node.dependsOn.length === 0 ? '' : `, after ${node.dependsOn.join(', ')}`;
      return `${index + 1}. ${node.id} (${node.agent}${after}): ${node.task}`;
    })
    .join('\n');
}
