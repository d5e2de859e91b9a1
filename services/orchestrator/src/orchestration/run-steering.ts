import {
  resolveSteeringName,
  stepMatchesTarget,
  withoutExcluded,
  type AgentSteering,
  type AgentSummary,
  type Plan,
  type PlanRequest,
} from '@fleet/a2a';
import type { AvailableAgent } from '../discovery';
import type { AskPlanner } from '../planning';

/**
 * The agents a run with `steering` may plan with: without what its `exclude` names (an excluded
 * skill is taken off its agent; an agent left without skills is dropped). Without exclusions the
 * agents are returned as they are.
 *
 * @example
 * const availableAgents = async () => agentsUnderSteering(await directory.availableAgents(), steering);
 */
export function agentsUnderSteering(
  agents: readonly AvailableAgent[],
  steering: AgentSteering | undefined,
): AvailableAgent[] {
  const exclude = steering?.exclude;
  if (exclude === undefined || exclude.length === 0) return [...agents];
  const kept = withoutExcluded(
    agents.map((agent) => agent.summary),
    exclude,
  );
  return kept.flatMap((summary) => {
    const agent = agents.find((entry) => entry.name === summary.name);
    return agent === undefined ? [] : [{ ...agent, summary }];
  });
}

/** What the planner is told of a steering: its `prefer` and `require` (exclusions are applied). */
export function plannerSteering(
  steering: AgentSteering | undefined,
): PlanRequest['steering'] | undefined {
  const prefer = steering?.prefer ?? [];
  const require = steering?.require ?? [];
  if (prefer.length === 0 && require.length === 0) return undefined;
  return {
    ...(prefer.length === 0 ? {} : { prefer: [...prefer] }),
    ...(require.length === 0 ? {} : { require: [...require] }),
  };
}

/**
 * The required names (`steering.require`) no step of `plan` uses, as the request wrote them. A
 * name no available agent has counts as used: nothing could be planned for it.
 */
export function missingRequired(
  plan: Plan,
  steering: AgentSteering | undefined,
  agents: readonly AgentSummary[],
): string[] {
  return (steering?.require ?? []).filter((name) => {
    const targets = resolveSteeringName(name, agents);
    if (targets.length === 0) return false;
    return !plan.nodes.some((node) => targets.some((target) => stepMatchesTarget(node, target)));
  });
}

/** The instruction a re-plan for missing required agents or skills carries. */
export function requiredNote(missing: readonly string[]): string {
  return `The request requires ${missing.map((name) => `"${name}"`).join(', ')}: the plan must have a step that uses each (an agent name, "<agent>/<skill>" or a skill id), doing the part of the request it can do.`;
}

/**
 * The excluded names (`steering.exclude`) that steps of `plan` use: the plan was made without the
 * exclusions, to learn which excluded agent or skill the request needed.
 */
export function excludedNeeded(
  plan: Plan,
  steering: AgentSteering | undefined,
  agents: readonly AgentSummary[],
): string[] {
  return (steering?.exclude ?? []).filter((name) =>
    resolveSteeringName(name, agents).some((target) =>
      plan.nodes.some((node) => stepMatchesTarget(node, target)),
    ),
  );
}

/**
 * `askPlanner` whose every request carries the steering's `prefer` and `require` (unless it has
 * its own). Without either, `askPlanner` itself.
 */
export function withSteering(
  askPlanner: AskPlanner,
  steering: AgentSteering | undefined,
): AskPlanner {
  const told = plannerSteering(steering);
  if (told === undefined) return askPlanner;
  return (request, options) =>
    askPlanner({ ...request, steering: request.steering ?? told }, options);
}
