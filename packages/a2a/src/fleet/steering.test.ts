import { describe, expect, it } from '@jest/globals';
import type { AgentSummary } from './conventions';
import { resolveSteeringName, unknownSteeringNames, withoutExcluded } from './steering';

const skill = (id: string) => ({ id, name: id, description: '', tags: [], examples: [] });
const AGENTS: AgentSummary[] = [
  { name: 'mail-agent', description: '', skills: [skill('send-mail'), skill('search-mail')] },
  { name: 'tools', description: '', skills: [skill('memory/read_graph')] },
  { name: 'other-mail', description: '', skills: [skill('send-mail')] },
];

describe('resolveSteeringName', () => {
  it('reads an agent, an agent/skill, a bare skill id and an MCP tool id', () => {
    expect(resolveSteeringName('tools', AGENTS)).toEqual([{ agent: 'tools' }]);
    expect(resolveSteeringName('mail-agent/send-mail', AGENTS)).toEqual([
      { agent: 'mail-agent', skill: 'send-mail' },
    ]);
    expect(resolveSteeringName('send-mail', AGENTS)).toEqual([
      { agent: 'mail-agent', skill: 'send-mail' },
      { agent: 'other-mail', skill: 'send-mail' },
    ]);
    expect(resolveSteeringName('memory/read_graph', AGENTS)).toEqual([
      { agent: 'tools', skill: 'memory/read_graph' },
    ]);
    expect(resolveSteeringName('mail-agent/fly', AGENTS)).toEqual([]);
  });

  it('lists the names that name nothing, with their list', () => {
    expect(
      unknownSteeringNames({ prefer: ['tools', 'ghost'], exclude: ['mail-agent/fly'] }, AGENTS),
    ).toEqual([
      { kind: 'prefer', name: 'ghost' },
      { kind: 'exclude', name: 'mail-agent/fly' },
    ]);
  });
});

describe('withoutExcluded', () => {
  it('drops excluded agents and skills, and an agent left without skills', () => {
    const kept = withoutExcluded(AGENTS, ['tools', 'send-mail']);
    expect(kept.map((agent) => [agent.name, agent.skills.map((entry) => entry.id)])).toEqual([
      ['mail-agent', ['search-mail']],
    ]);
    expect(withoutExcluded(AGENTS, undefined)).toEqual(AGENTS);
  });
});
