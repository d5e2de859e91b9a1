import type { Plan, PlanNode } from '@fleet/a2a';
import type { ExpectedStep } from './planner-cases';

/** Prompt scaffolding that must never reach a step's task. */
const SCAFFOLDING = [/conversation so far/i, /request to plan/i, /available agents \(/i];

function listOf(value: string | readonly string[] | undefined): readonly string[] | undefined {
  return value === undefined ? undefined : typeof value === 'string' ? [value] : value;
}

/** Why `node` cannot be `step` (ignoring dependencies), or undefined when it can. */
function stepMismatch(node: PlanNode, step: ExpectedStep): string | undefined {
  const agents = listOf(step.agent) ?? [];
  if (!agents.includes(node.agent)) return `agent ${node.agent}, not ${agents.join(' or ')}`;
  const skills = listOf(step.skill);
  if (skills !== undefined && (node.skill === undefined || !skills.includes(node.skill)))
    return `skill ${node.skill ?? 'none'}, not ${skills.join(' or ')}`;
  const task = node.task.toLowerCase();
  const missing = (step.carries ?? []).filter((text) => !task.includes(text.toLowerCase()));
  if (missing.length > 0)
    return `task lacks ${missing.map((text) => JSON.stringify(text)).join(', ')}`;
  const extra = (step.notCarries ?? []).filter((text) => task.includes(text.toLowerCase()));
  if (extra.length > 0)
    return `task carries ${extra.map((text) => JSON.stringify(text)).join(', ')}`;
  return undefined;
}

function* permutations(count: number): Generator<number[]> {
  const pick = (rest: number[], chosen: number[]): number[][] =>
    rest.length === 0
      ? [chosen]
      : rest.flatMap((value, index) =>
          pick([...rest.slice(0, index), ...rest.slice(index + 1)], [...chosen, value]),
        );
  yield* pick(
    Array.from({ length: count }, (_, index) => index),
    [],
  );
}

/** Whether the plan is one of the expected ones, and if not, the closest reason why. */
export interface PlanVerdict {
  right: boolean;
  /** For a miss: what differs from the closest expected plan. */
  why?: string;
}

/**
 * Compares a plan with the expected step lists: right when for one of them the nodes match the
 * steps one to one (agent, skill, what the task carries and must not carry) and each node waits
 * for exactly the nodes of the steps its step waits for. Node order and ids do not matter. A task
 * that quotes prompt scaffolding ("Conversation so far", "Request to plan") is always a miss.
 *
 * @example
 * scorePlan({ plan, expected: [[{ agent: 'rag-agent', carries: ['700 EUR'] }]] }); // { right: true }
 */
export function scorePlan({
  plan,
  expected,
}: {
  plan: Plan;
  expected: readonly (readonly ExpectedStep[])[];
}): PlanVerdict {
  const leaked = plan.nodes.find((node) => SCAFFOLDING.some((pattern) => pattern.test(node.task)));
  if (leaked) return { right: false, why: `task of ${leaked.id} quotes the planning prompt` };
  let closest: string | undefined;
  for (const steps of expected) {
    if (steps.length !== plan.nodes.length) {
      closest ??= `${plan.nodes.length} step${plan.nodes.length === 1 ? '' : 's'}, not ${steps.length}`;
      continue;
    }
    // Cases have at most a handful of steps, so trying every assignment is cheap (8! at worst).
    for (const order of permutations(steps.length)) {
      // order[i] is the node for step i.
      let why: string | undefined;
      for (let index = 0; index < steps.length && why === undefined; index++) {
        const step = steps[index];
        const node = plan.nodes[order[index] ?? -1];
        if (step === undefined || node === undefined) {
          why = 'internal: step without node';
          break;
        }
        why = stepMismatch(node, step);
        if (why !== undefined) {
          why = `step ${index + 1}: ${why}`;
          break;
        }
        const wanted = new Set(
          (step.after ?? []).map((after) => plan.nodes[order[after] ?? -1]?.id),
        );
        const actual = new Set(node.dependsOn);
        const same = wanted.size === actual.size && [...wanted].every((id) => actual.has(id ?? ''));
        if (!same) {
          why = `step ${index + 1}: waits for [${[...actual].join(', ')}], not [${[...wanted].join(', ')}]`;
        }
      }
      if (why === undefined) return { right: true };
      if (
        closest === undefined ||
        closest.includes(' steps, not ') ||
        closest.includes(' step, not ')
      )
        closest = why;
    }
  }
  return { right: false, why: closest ?? 'no expected plan' };
}
