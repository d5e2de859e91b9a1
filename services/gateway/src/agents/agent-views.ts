import {
  applyToolPolicy,
  toolApprovalOf,
  toolOfSkill,
  type AgentListing,
  type ToolApproval,
  type ToolPolicy,
} from '@fleet/a2a';

/** One skill of an agent as `GET /v1/agents` shows it. */
export interface SkillView {
  id: string;
  name: string;
  description: string;
  tags: string[];
  /** For an MCP tool: whether calling it asks a person first (its `approval:*` tag); absent: it does not say. */
  approval?: ToolApproval;
  /** Set when the skill is an MCP tool of a tools agent: its server and tool. */
  mcp?: { server: string; tool: string };
}

/** One agent as `GET /v1/agents` shows it. */
export interface AgentView {
  object: 'agent';
  name: string;
  url: string;
  description: string;
  /** What the agent's card says about whether it can work; `ready` when it does not say. */
  availability: {
    state: 'ready' | 'degraded' | 'unconfigured';
    reason?: string;
    unavailableSkills?: string[];
  };
  skills: SkillView[];
}

/**
 * The agents of the orchestrator's listing as a tenant with `policy` sees them: the MCP tools it
 * may not use left out (`applyToolPolicy`), each skill with its approval and MCP tool named.
 */
export function agentViews(
  agents: AgentListing['agents'],
  policy: ToolPolicy | undefined,
): AgentView[] {
  return agents.flatMap((listed) => {
    const agent = applyToolPolicy(listed, policy);
    if (agent === undefined) return [];
    const { availability } = agent;
    return [
      {
        object: 'agent' as const,
        name: agent.name,
        url: agent.url,
        description: agent.description,
        availability: {
          state: availability?.state ?? 'ready',
          ...(availability?.reason === undefined ? {} : { reason: availability.reason }),
          ...(availability?.unavailableSkills === undefined
            ? {}
            : { unavailableSkills: availability.unavailableSkills }),
        },
        skills: agent.skills.map((skill): SkillView => {
          const mcp = toolOfSkill(agent, skill.id);
          const approval = mcp === undefined ? undefined : toolApprovalOf(skill.tags);
          return {
            id: skill.id,
            name: skill.name,
            description: skill.description,
            tags: skill.tags,
            ...(approval === undefined ? {} : { approval }),
            ...(mcp === undefined ? {} : { mcp }),
          };
        }),
      },
    ];
  });
}
