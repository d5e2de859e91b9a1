import { z } from 'zod';
import { agentSummarySchema, type AgentSummary } from './conventions';
import { isToolPermitted, parseToolSkillId, type ToolPolicy } from './tool-policy';

/** The tag every MCP tool skill carries on a tools agent's card. */
export const MCP_SKILL_TAG = 'mcp';

/** The tags a tool skill says whether calling it needs a person's approval with. */
const APPROVAL_TAGS = { 'approval:required': 'required', 'approval:none': 'none' } as const;

/** Whether a tool asks for a person's approval before it runs, as its skill's tags say. */
export type ToolApproval = (typeof APPROVAL_TAGS)[keyof typeof APPROVAL_TAGS];

/** What {@link isToolAgent} and {@link toolOfSkill} read of a skill. */
interface SkillLike {
  id: string;
  tags: readonly string[];
}

/**
 * Whether an agent offers MCP tools: one of its skills carries the `mcp` tag. Read liberally: one
 * tagged skill makes every skill of the agent whose id reads as `<server>/<tool>` a tool.
 */
export function isToolAgent(agent: { skills: readonly SkillLike[] }): boolean {
  return agent.skills.some((skill) => skill.tags.includes(MCP_SKILL_TAG));
}

/**
 * The MCP server and tool a skill of `agent` stands for, or undefined when it is not a tool: the
 * agent is not a tools agent ({@link isToolAgent}), or the id is not `<server>/<tool>`.
 *
 * @example
 * toolOfSkill(toolsAgent, 'memory/delete_entities'); // { server: 'memory', tool: 'delete_entities' }
 */
export function toolOfSkill(
  agent: { skills: readonly SkillLike[] },
  skillId: string,
): { server: string; tool: string } | undefined {
  return isToolAgent(agent) ? parseToolSkillId(skillId) : undefined;
}

/** Whether a tool skill needs approval (`approval:required` / `approval:none`); undefined: it does not say. */
export function toolApprovalOf(tags: readonly string[]): ToolApproval | undefined {
  for (const tag of tags) {
    if (tag === 'approval:required' || tag === 'approval:none') return APPROVAL_TAGS[tag];
  }
  return undefined;
}

/**
 * Why `policy` refuses a step on `agent` with `skillId`, or undefined when the step may run: the
 * skill is an MCP tool the tenant may not use.
 *
 * @example
 * deniedToolReason({ agent: toolsAgent, skillId: 'memory/delete_entities', policy: { deny: ['memory/delete_*'] } });
 * // 'the tool "memory/delete_entities" of tools-agent is not permitted for this tenant (its tool policy)'
 */
export function deniedToolReason({
  agent,
  skillId,
  policy,
}: {
  agent: { name: string; skills: readonly SkillLike[] };
  skillId: string | undefined;
  policy: ToolPolicy | undefined;
}): string | undefined {
  if (policy === undefined || skillId === undefined) return undefined;
  const tool = toolOfSkill(agent, skillId);
  if (tool === undefined || isToolPermitted(policy, tool.server, tool.tool)) return undefined;
  return `the tool "${skillId}" of ${agent.name} is not permitted for this tenant (its tool policy)`;
}

/**
 * An agent as a tenant with `policy` sees it: a tools agent without the tools the policy refuses
 * (and without them in `availability.unavailableSkills`); undefined when it offered tools and
 * none is left. Any other agent, and every agent without a policy, is returned as it is.
 *
 * @example
 * const visible = agents.flatMap((agent) => applyToolPolicy(agent, policy) ?? []);
 */
export function applyToolPolicy<T extends AgentSummary>(
  agent: T,
  policy: ToolPolicy | undefined,
): T | undefined {
  if (policy === undefined || !isToolAgent(agent)) return agent;
  const skills = agent.skills.filter((skill) => {
    const tool = parseToolSkillId(skill.id);
    return tool === undefined || isToolPermitted(policy, tool.server, tool.tool);
  });
  if (skills.length === agent.skills.length) return agent;
  if (skills.length === 0) return undefined;
  const kept = new Set(skills.map((skill) => skill.id));
  const unavailable = agent.availability?.unavailableSkills?.filter((id) => kept.has(id));
  return {
    ...agent,
    skills,
    ...(agent.availability === undefined
      ? {}
      : {
          availability: {
            state: agent.availability.state,
            ...(agent.availability.reason === undefined
              ? {}
              : { reason: agent.availability.reason }),
            ...(unavailable === undefined || unavailable.length === 0
              ? {}
              : { unavailableSkills: unavailable }),
          },
        }),
  };
}

/** Most agents an agent listing carries (AGENT_URLS is a short, configured list). */
export const MAX_LISTED_AGENTS = 200;

/**
 * The agents the orchestrator can use now, as its internal `GET /internal/agents` lists them: each
 * agent's summary (what the planner sees, before any tenant's tool policy) and its base URL.
 */
export const agentListingSchema = z.object({
  agents: z.array(agentSummarySchema.extend({ url: z.string() })).max(MAX_LISTED_AGENTS),
});
export type AgentListing = z.infer<typeof agentListingSchema>;
