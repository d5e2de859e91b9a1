import { describe, expect, it } from '@jest/globals';
import type { AgentSummary, Plan } from '@fleet/a2a';
import { FLEET_AGENTS } from '../test-support/fleet-agents';
import { planHeuristically } from './heuristic-planner';

function plan(request: string, agents: readonly AgentSummary[] = FLEET_AGENTS): Plan {
  return planHeuristically({ request, agents });
}

/** `agent <- dependencies` per node. */
function shape(result: Plan): string[] {
  return result.nodes.map(
    (node) => `${node.agent}${node.dependsOn.length > 0 ? ` <- ${node.dependsOn.join(',')}` : ''}`,
  );
}

describe('planHeuristically: what the request means', () => {
  it('keeps a clause that only refers back in the step before it, with the program', () => {
    const result = plan(
      'Run this Python code and tell me what it prints:\n```python\nprint(sum(range(101)))\n```',
    );
    expect(shape(result)).toEqual(['code-agent']);
    expect(result.nodes[0]?.task).toContain('tell me what it prints');
    expect(result.nodes[0]?.task).toContain('```python\nprint(sum(range(101)))\n```');
  });

  it('gives a code block to the step that runs code, not to the step that mails the result', () => {
    const result = plan(
      'Run this code, then email the result to sam@example.com:\n```python\nprint(42)\n```',
    );
    expect(shape(result)).toEqual(['code-agent', 'mail-agent <- code-agent-1']);
    expect(result.nodes[0]?.task).toContain('print(42)');
    expect(result.nodes[1]?.task).not.toContain('print(42)');
    expect(result.nodes[1]?.task).toContain('sam@example.com');
  });

  it('makes "and email it to …" wait for the step that produces "it"', () => {
    const result = plan(
      'Search the web for the latest TypeScript release and email it to dev@example.com',
    );
    expect(shape(result)).toEqual(['web-agent', 'mail-agent <- web-agent-1']);
  });

  it('keeps both halves of a two-part question about one thing in one step', () => {
    const result = plan(
      'Who do I contact about expense reports, and what is the deadline for submitting them?',
    );
    expect(shape(result)).toEqual(['rag-agent']);
    expect(result.nodes[0]?.task).toContain('expense reports');
    expect(result.nodes[0]?.task).toContain('deadline for submitting them');
  });

  it('does not split numbers, lists or "between A and B" into steps', () => {
    expect(
      shape(plan('Calculate the compound interest on 10,000 EUR at 4% over 15 years in Python.')),
    ).toEqual(['code-agent']);
    expect(
      shape(plan('Compute the mean, median and standard deviation of 3, 7, 7, 19, 24 in Python.')),
    ).toEqual(['code-agent']);
    expect(
      shape(plan('Research the differences between PostgreSQL and MySQL replication on the web.')),
    ).toEqual(['web-agent']);
  });

  it.each([
    'Who has to approve a 700 EUR purchase?',
    'Can I work from another country, and for how long?',
    "From which day of being ill do I need a doctor's note?",
    "If I'm sick, by what time do I have to tell my manager?",
    'Summarise the onboarding checklist from our docs',
    'What are our core working hours?',
  ])('sends the handbook question %p to the document agent', (request) => {
    expect(shape(plan(request))).toEqual(['rag-agent']);
  });

  it('still sends a question that names another channel to it', () => {
    expect(shape(plan('Which unread emails came in since yesterday?'))).toEqual(['mail-agent']);
    expect(shape(plan('What is the latest news about the EU AI Act?'))).toEqual(['web-agent']);
  });
});

describe('planHeuristically: agents that cannot work', () => {
  const calculator: AgentSummary = {
    name: 'calc-agent',
    description: 'Works figures out step by step.',
    skills: [
      {
        id: 'calc',
        name: 'Calculate',
        description: 'Arithmetic and dates.',
        tags: ['calculation', 'math'],
        examples: [],
      },
    ],
  };
  const withAvailability = (name: string, availability: AgentSummary['availability']) =>
    [...FLEET_AGENTS, calculator].map((agent) =>
      agent.name === name && availability ? { ...agent, availability } : agent,
    );

  it('passes over a degraded agent when another can do the step, and says why', () => {
    const result = plan(
      'What is 12% of 4,500?',
      withAvailability('code-agent', { state: 'degraded', reason: 'bubblewrap is missing' }),
    );
    const agent = result.nodes[0]?.agent;
    expect(agent).toBe('calc-agent');
    expect(result.rationale).toContain(
      'code-agent was passed over (degraded: bubblewrap is missing)',
    );
  });

  it('plans an unconfigured agent anyway when nothing else can do the step', () => {
    const result = plan(
      'Send bob@example.com a mail saying the deploy is done',
      withAvailability('mail-agent', { state: 'unconfigured', reason: 'set MAIL_SMTP_HOST' }),
    );
    expect(shape(result)).toEqual(['mail-agent']);
    expect(result.rationale).toContain(
      'mail-agent is planned although it is unconfigured: set MAIL_SMTP_HOST, because no other agent can do this',
    );
  });
});
