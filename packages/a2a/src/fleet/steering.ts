import { z } from 'zod';
import type { AgentSummary } from './conventions';

/** Most names each list of an agent steering (`prefer`, `require`, `exclude`) holds. */
export const MAX_STEERING_NAMES = 16;

/** Longest name an agent steering accepts. */
export const MAX_STEERING_NAME_LENGTH = 128;

const steeringNameSchema = z
  .string()
  .trim()
  .min(1, 'an agent or skill name must not be empty')
  .max(MAX_STEERING_NAME_LENGTH, `a name has at most ${MAX_STEERING_NAME_LENGTH} characters`)
  .regex(/^[^\s,;=]+$/, 'a name has no spaces, commas, semicolons or "="');

const steeringListSchema = z
  .array(steeringNameSchema)
  .max(MAX_STEERING_NAMES, `at most ${MAX_STEERING_NAMES} names`);

/**
 * Which agents or skills a request wants the plan to prefer, require or leave out
 * (`X-Fleet-Agents`, or the body field `fleet_agents`). Each name is an agent name
 * (`rag-agent`), an agent's skill (`mail-agent/send-mail`) or a bare skill id (`send-mail`: that
 * skill on every agent that has it).
 *
 * - `exclude`: the planner never sees them; no step uses them.
 * - `prefer`: chosen over an agent that fits the request as well.
 * - `require`: the plan uses them (a plan without one is re-planned once, then run with a note).
 */
export const agentSteeringSchema = z.strictObject({
  prefer: steeringListSchema.optional(),
  require: steeringListSchema.optional(),
  exclude: steeringListSchema.optional(),
});
export type AgentSteering = z.infer<typeof agentSteeringSchema>;

/** The three lists of an {@link AgentSteering}. */
export const STEERING_KINDS = ['prefer', 'require', 'exclude'] as const;
export type SteeringKind = (typeof STEERING_KINDS)[number];

/** What one steering name points at: an agent (every skill) or one skill of it. */
export interface SteeringTarget {
  agent: string;
  /** Undefined: the whole agent. */
  skill?: string | undefined;
}

/**
 * What `name` names among `agents`: the agent of that name; `<agent>/<skill>` one skill of one
 * agent; a bare skill id that skill on every agent that has it. An agent name wins over a skill
 * id of the same spelling. Empty when nothing has that name.
 *
 * @example
 * resolveSteeringName('mail-agent/send-mail', agents); // [{ agent: 'mail-agent', skill: 'send-mail' }]
 */
export function resolveSteeringName(
  name: string,
  agents: readonly Pick<AgentSummary, 'name' | 'skills'>[],
): SteeringTarget[] {
  if (agents.some((agent) => agent.name === name)) return [{ agent: name }];
  const slash = name.indexOf('/');
  if (slash > 0) {
    const agentName = name.slice(0, slash);
    const skill = name.slice(slash + 1);
    const agent = agents.find((entry) => entry.name === agentName);
    if (agent?.skills.some((entry) => entry.id === skill)) return [{ agent: agentName, skill }];
    // An MCP tool skill id has a slash of its own (`memory/read_graph`): try it as a bare id.
  }
  return agents.flatMap((agent) =>
    agent.skills.some((entry) => entry.id === name) ? [{ agent: agent.name, skill: name }] : [],
  );
}

/** The steering's names that name nothing among `agents`, with the list each came in. */
export function unknownSteeringNames(
  steering: AgentSteering,
  agents: readonly Pick<AgentSummary, 'name' | 'skills'>[],
): { kind: SteeringKind; name: string }[] {
  return STEERING_KINDS.flatMap((kind) =>
    (steering[kind] ?? [])
      .filter((name) => resolveSteeringName(name, agents).length === 0)
      .map((name) => ({ kind, name })),
  );
}

/** Whether the steering asks for nothing. */
export function isEmptySteering(steering: AgentSteering | undefined): boolean {
  return STEERING_KINDS.every((kind) => (steering?.[kind]?.length ?? 0) === 0);
}

/**
 * `agents` without what `exclude` names: an excluded agent is dropped, an excluded skill is taken
 * off its agent, and an agent whose every skill was excluded is dropped. Unchanged agents are
 * returned as they are (same objects).
 *
 * @example
 * withoutExcluded(agents, ['web-agent', 'mail-agent/send-mail']);
 */
export function withoutExcluded<T extends Pick<AgentSummary, 'name' | 'skills'>>(
  agents: readonly T[],
  exclude: readonly string[] | undefined,
): T[] {
  if (exclude === undefined || exclude.length === 0) return [...agents];
  const targets = exclude.flatMap((name) => resolveSteeringName(name, agents));
  return agents.flatMap((agent) => {
    const own = targets.filter((target) => target.agent === agent.name);
    if (own.length === 0) return [agent];
    if (own.some((target) => target.skill === undefined)) return [];
    const skills = agent.skills.filter((skill) => !own.some((target) => target.skill === skill.id));
    return skills.length === 0 ? [] : [{ ...agent, skills }];
  });
}

/** Whether a plan step (its agent and skill) uses what a steering target names. */
export function stepMatchesTarget(
  step: { agent: string; skill?: string | undefined },
  target: SteeringTarget,
): boolean {
  return step.agent === target.agent && (target.skill === undefined || step.skill === target.skill);
}
