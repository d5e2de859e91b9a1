import { describe, expect, it } from '@jest/globals';
import type { AgentSummary } from './conventions';
import { applyToolPolicy, deniedToolReason, toolApprovalOf, toolOfSkill } from './tool-skills';

const skill = (id: string, tags: string[]) => ({
  id,
  name: id,
  description: `${id} skill`,
  tags,
  examples: [],
});

const toolsAgent: AgentSummary = {
  name: 'tools-agent',
  description: 'MCP tools',
  availability: {
    state: 'degraded',
    reason: 'memory is read-only',
    unavailableSkills: ['memory/delete_entities', 'memory/read_graph'],
  },
  skills: [
    skill('memory/read_graph', ['mcp', 'mcp-server:memory', 'approval:none', 'read-only']),
    skill('memory/delete_entities', ['mcp', 'mcp-server:memory', 'approval:required']),
    skill('help', ['mcp']),
  ],
};

const ragAgent: AgentSummary = {
  name: 'rag-agent',
  description: 'documents',
  skills: [skill('docs/search', ['rag'])],
};

describe('applyToolPolicy', () => {
  it('removes denied tools from a tools agent, with their unavailable-skill entries', () => {
    const seen = applyToolPolicy(toolsAgent, { deny: ['memory/delete_*'] });
    expect(seen?.skills.map((entry) => entry.id)).toEqual(['memory/read_graph', 'help']);
    expect(seen?.availability).toEqual({
      state: 'degraded',
      reason: 'memory is read-only',
      unavailableSkills: ['memory/read_graph'],
    });
  });

  it('drops a tools agent left without skills and leaves other agents alone', () => {
    const onlyTools = { ...toolsAgent, skills: toolsAgent.skills.slice(0, 2) };
    expect(applyToolPolicy(onlyTools, { allow: ['filesystem/*'] })).toBeUndefined();
    expect(applyToolPolicy(ragAgent, { deny: ['*/*'] })).toBe(ragAgent);
    expect(applyToolPolicy(toolsAgent, undefined)).toBe(toolsAgent);
  });
});

describe('deniedToolReason', () => {
  it('names a denied tool and lets permitted tools and other agents through', () => {
    const policy = { deny: ['memory/delete_*'] };
    expect(
      deniedToolReason({ agent: toolsAgent, skillId: 'memory/delete_entities', policy }),
    ).toMatch(/"memory\/delete_entities" of tools-agent is not permitted/);
    expect(
      deniedToolReason({ agent: toolsAgent, skillId: 'memory/read_graph', policy }),
    ).toBeUndefined();
    expect(
      deniedToolReason({ agent: ragAgent, skillId: 'docs/search', policy: { deny: ['*/*'] } }),
    ).toBeUndefined();
  });
});

describe('toolOfSkill and toolApprovalOf', () => {
  it('reads the tool and its approval from the skill', () => {
    expect(toolOfSkill(toolsAgent, 'memory/read_graph')).toEqual({
      server: 'memory',
      tool: 'read_graph',
    });
    expect(toolOfSkill(ragAgent, 'docs/search')).toBeUndefined();
    expect(toolApprovalOf(['mcp', 'approval:required'])).toBe('required');
    expect(toolApprovalOf(['approval:none'])).toBe('none');
    expect(toolApprovalOf(['mcp'])).toBeUndefined();
  });
});
