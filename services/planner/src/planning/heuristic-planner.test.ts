import { describe, expect, it } from '@jest/globals';
import { planSchema, validatePlan, type AgentSummary, type Plan } from '@fleet/a2a';
import { FLEET_AGENT_NAMES, FLEET_AGENTS } from '../test-support/fleet-agents';
import { MATCH_THRESHOLD, planHeuristically, scoreAgents } from './heuristic-planner';

function plan(request: string, agents: readonly AgentSummary[] = FLEET_AGENTS): Plan {
  const result = planHeuristically({ request, agents });
  // Whatever it returns must be a plan the orchestrator accepts.
  expect(planSchema.parse(result)).toEqual(result);
  expect(
    validatePlan(
      result,
      agents.map((agent) => agent.name),
    ),
  ).toEqual({ valid: true });
  return result;
}

/** `agent(skill) <- dependencies` per node, for compact assertions. */
function shape(result: Plan): string[] {
  return result.nodes.map(
    (node) =>
      `${node.id}=${node.agent}${node.skill ? `(${node.skill})` : ''}` +
      (node.dependsOn.length > 0 ? ` <- ${node.dependsOn.join(',')}` : ''),
  );
}

describe('scoreAgents', () => {
  it('weights tags over names over examples and descriptions', () => {
    const [web, ...rest] = scoreAgents({ text: 'search the web for X', agents: FLEET_AGENTS });
    expect(web).toMatchObject({ agent: 'web-agent', skill: 'web-search' });
    // "web" is a tag (3); "search" is on most cards, so it counts half (3 / 2).
    expect(web?.score).toBe(4.5);
    expect(web?.matches).toEqual(
      expect.arrayContaining([
        { term: 'web', word: 'web', source: 'tag', matched: 'web', weight: 3 },
        { term: 'search', word: 'search', source: 'tag', matched: 'search', weight: 1.5 },
      ]),
    );
    for (const other of rest) expect(other.score).toBeLessThan(MATCH_THRESHOLD);
  });

  it('picks the skill that fits best', () => {
    const [mail] = scoreAgents({ text: 'reply to the email from Alice', agents: FLEET_AGENTS });
    expect(mail).toMatchObject({ agent: 'mail-agent', skill: 'mail-send' });
    const [reader] = scoreAgents({
      text: 'summarise https://nodejs.org/en/blog',
      agents: FLEET_AGENTS,
    });
    expect(reader).toMatchObject({ agent: 'web-agent', skill: 'fetch-page' });
  });

  it('matches inflected words and multi-word tags', () => {
    const [code] = scoreAgents({ text: 'plotting the charts', agents: FLEET_AGENTS });
    expect(code).toMatchObject({ agent: 'code-agent', score: 6 });
    const [rag] = scoreAgents({ text: 'check the knowledge base', agents: FLEET_AGENTS });
    // "check" means "search", which the rag agent's skill name has (on most cards: half).
    expect(rag).toMatchObject({ agent: 'rag-agent', score: 4 });
  });
});

describe('planHeuristically', () => {
  it('runs independent parts in parallel: web and internal docs', () => {
    const result = plan('search the web for X and look up our internal docs on Y');
    expect(shape(result)).toEqual([
      'web-agent-1=web-agent(web-search)',
      'rag-agent-1=rag-agent(document-search)',
    ]);
    expect(result.nodes[0]?.task).toBe('Search the web for X.');
    expect(result.nodes[1]?.task).toBe('Look up our internal docs on Y.');
    expect(result.rationale).toContain('in parallel');
    expect(result.rationale).toContain(
      'rag-agent-1 = rag-agent/document-search (tags "internal", "documents") for "look up our internal docs on Y"',
    );
    expect(result.confidence).toBeGreaterThan(0.5);
  });

  it('chains clauses joined by "then": documents, then mail', () => {
    const result = plan('find X in our documents, then email a summary to bob@example.com');
    expect(shape(result)).toEqual([
      'rag-agent-1=rag-agent(document-search)',
      'mail-agent-1=mail-agent(mail-send) <- rag-agent-1',
    ]);
    expect(result.nodes[0]?.task).toBe('Find X in our documents.');
    expect(result.nodes[1]?.task).toBe(
      'Email a summary to bob@example.com. Use the results of step rag-agent-1 as input.',
    );
    expect(result.rationale).toContain('after rag-agent-1 (the request says "then")');
  });

  it('builds a diamond: two research steps in parallel, then one that uses both', () => {
    const result = plan(
      'search the web for TypeScript 5.9, look up our internal docs on Node 20, then compare them in a python chart',
    );
    expect(shape(result)).toEqual([
      'web-agent-1=web-agent(web-search)',
      'rag-agent-1=rag-agent(document-search)',
      'code-agent-1=code-agent(python) <- web-agent-1,rag-agent-1',
    ]);
    expect(result.nodes.map((node) => node.task)).toEqual([
      'Search the web for TypeScript 5.9.',
      'Look up our internal docs on Node 20.',
      'Compare them in a python chart. Use the results of steps web-agent-1, rag-agent-1 as input.',
    ]);
  });

  it('keeps neighbouring parts for the same agent in one step', () => {
    const result = plan(
      'research TypeScript 5.9, research Node 20, then compare them in a python chart',
    );
    expect(shape(result)).toEqual([
      'web-agent-1=web-agent(web-search)',
      'code-agent-1=code-agent(python) <- web-agent-1',
    ]);
  });

  it('mixes agents in the parallel stage of a diamond', () => {
    const result = plan(
      'search the web for competitor prices and check our internal pricing docs, then plot both in a chart and finally email it to anna@example.com',
    );
    expect(shape(result)).toEqual([
      'web-agent-1=web-agent(web-search)',
      'rag-agent-1=rag-agent(document-search)',
      'code-agent-1=code-agent(python) <- web-agent-1,rag-agent-1',
      'mail-agent-1=mail-agent(mail-send) <- code-agent-1',
    ]);
  });

  it('returns an empty plan with confidence 0 for gibberish', () => {
    const result = plan('flurb zxqv blorptang wibble');
    expect(result.nodes).toEqual([]);
    expect(result.confidence).toBe(0);
    expect(result.rationale).toMatch(/No agent fits the request/);
    expect(result.rationale).toContain('web-agent, rag-agent, mail-agent, code-agent');
  });

  it('returns an empty plan when there are no agents', () => {
    const result = plan('search the web for X', []);
    expect(result).toEqual({
      nodes: [],
      rationale: expect.stringMatching(/No agents/),
      confidence: 0,
    });
  });

  it('ends questions with a question mark', () => {
    expect(plan('what is the latest news on the EU AI act').nodes[0]?.task).toBe(
      'What is the latest news on the EU AI act?',
    );
  });

  describe('a request no agent matches', () => {
    // The real RAG card tags its skill "knowledge": the fleet's fallback for unclaimed questions.
    const withKnowledge: AgentSummary[] = FLEET_AGENTS.map((agent) =>
      agent.name === 'rag-agent'
        ? {
            ...agent,
            skills: agent.skills.map((skill, index) =>
              index === 0 ? { ...skill, tags: [...skill.tags, 'knowledge'] } : skill,
            ),
          }
        : agent,
    );
    const ragSkill = FLEET_AGENTS.find((agent) => agent.name === 'rag-agent')?.skills[0]?.id;

    it('goes to the skill tagged "knowledge"', () => {
      const result = plan('What is the notice period?', withKnowledge);
      expect(shape(result)).toEqual([`rag-agent-1=rag-agent(${ragSkill})`]);
      expect(result.nodes[0]?.task).toBe('What is the notice period?');
      expect(result.rationale).toMatch(/tagged "knowledge"/);
      expect(result.confidence).toBeGreaterThan(0);
    });

    it('is not decided by a word of an example sentence alone', () => {
      // "last" appears only in the mail agent's example "What did I send to alice last week?".
      expect(
        scoreAgents({ text: 'How long does the probation period last?', agents: FLEET_AGENTS })[0],
      ).toMatchObject({ agent: 'mail-agent', matches: [{ source: 'example' }] });
      const result = plan('How long does the probation period last?', withKnowledge);
      expect(shape(result)).toEqual([`rag-agent-1=rag-agent(${ragSkill})`]);
    });

    it('goes to a skill tagged "knowledge base" or "documents" when none is tagged "knowledge"', () => {
      expect(shape(plan('How long does the probation period last?'))).toEqual([
        `rag-agent-1=rag-agent(${ragSkill})`,
      ]);
    });

    it('gets an empty plan when no agent says it holds knowledge', () => {
      const agents = FLEET_AGENTS.filter((agent) => agent.name !== 'rag-agent');
      expect(plan('How long does the probation period last?', agents).nodes).toEqual([]);
    });
  });

  it('gives the whole request to the closest agent when it matches only weakly', () => {
    // "sandbox" appears only in the code agent's description: below the threshold, but a match.
    const result = plan('use the sandbox');
    expect(shape(result)).toEqual(['code-agent-1=code-agent(python)']);
    expect(result.nodes[0]?.task).toBe('Use the sandbox.');
    expect(result.confidence).toBeLessThanOrEqual(0.3);
    expect(result.rationale).toContain('(description "sandbox") (a weak match');
    expect(result.confidence).toBeGreaterThan(0);
  });

  it('hands a quoted program to its node whole, newlines and punctuation included', () => {
    const program = '```python\nvalues = [1, 2, 3]\nprint(sum(values) / len(values))\n```';
    const result = plan(
      `Run this python code:\n${program}\nthen email the result to bob@example.com`,
    );
    expect(shape(result)).toEqual([
      'code-agent-1=code-agent(python)',
      'mail-agent-1=mail-agent(mail-send) <- code-agent-1',
    ]);
    expect(result.nodes[0]?.task).toBe(`Run this python code:\n${program}`);
  });

  it('names the files a request mentions on its code step, and on no other step', () => {
    const program = "```python\nimport pandas as pd\ndf = pd.read_csv('/data/sales.csv')\n```";
    const result = plan(
      `Run this python code on the file report.xlsx and sales.csv:\n${program}\nthen email the result to bob@example.com`,
    );
    expect(shape(result)).toEqual([
      'code-agent-1=code-agent(python)',
      'mail-agent-1=mail-agent(mail-send) <- code-agent-1',
    ]);
    expect(result.nodes[0]?.files).toEqual(['report.xlsx', 'sales.csv']);
    expect(result.nodes[1]?.files).toBeUndefined();
    expect(planSchema.parse(result)).toEqual(result);
  });

  it('gives a code step the attached files, beside the ones the request names', () => {
    const result = planHeuristically({
      request: 'plot the monthly totals in a python chart, using notes.txt too',
      agents: FLEET_AGENTS,
      files: [{ name: 'sales.csv' }, { name: 'notes.txt' }],
    });
    expect(shape(result)).toEqual(['code-agent-1=code-agent(python)']);
    expect(result.nodes[0]?.files).toEqual(['notes.txt', 'sales.csv']);
    expect(planSchema.parse(result)).toEqual(result);
  });

  it('gives attached files to no step that does not run code', () => {
    const result = planHeuristically({
      request: 'search the web for the latest EU AI Act news',
      agents: FLEET_AGENTS,
      files: [{ name: 'sales.csv' }],
    });
    expect(result.nodes.length).toBeGreaterThan(0);
    expect(result.nodes.every((node) => node.files === undefined)).toBe(true);
  });

  it('names no files on a code step when the request names none', () => {
    const result = plan('compare revenue and costs in a python chart');
    expect(result.nodes[0]?.files).toBeUndefined();
  });

  it('plans nothing for a request that shares only function words with the cards', () => {
    // "say" and "one" appear in cards' examples and descriptions; they say nothing about which
    // agent should act.
    const result = plan('Say hello in one sentence.');
    expect(result.nodes).toEqual([]);
    expect(result.confidence).toBe(0);
  });

  it('keeps words no agent matches with their neighbour', () => {
    const result = plan('compare revenue and costs in a python chart');
    expect(shape(result)).toEqual(['code-agent-1=code-agent(python)']);
    expect(result.nodes[0]?.task).toBe('Compare revenue and costs in a python chart.');
  });

  it('runs the object of "based on" first', () => {
    const result = plan('write a python chart based on the sales figures in our documents');
    expect(shape(result)).toEqual([
      'rag-agent-1=rag-agent(document-search)',
      'code-agent-1=code-agent(python) <- rag-agent-1',
    ]);
    expect(result.rationale).toContain('the request says "based on"');
  });

  it('skips clauses nothing matches without breaking the chain', () => {
    const result = plan(
      'look up the travel policy, then think hard about it, then email bob@example.com',
    );
    expect(shape(result)).toEqual([
      'rag-agent-1=rag-agent(document-search)',
      'mail-agent-1=mail-agent(mail-send) <- rag-agent-1',
    ]);
  });

  it('drops agents that match far less than the best one in the same part', () => {
    // "find" is in examples of both the RAG and the mail agent; "documents" only in RAG's tags.
    const result = plan('find the onboarding documents');
    expect(shape(result)).toEqual(['rag-agent-1=rag-agent(document-search)']);
  });

  it('leaves out an agent matched by prose alone beside one whose tags match', () => {
    const agents: AgentSummary[] = [
      {
        name: 'docs',
        description: 'Answers from your documents.',
        skills: [
          {
            id: 'answer',
            name: 'Answer',
            description: 'Answers.',
            tags: ['documents'],
            examples: [],
          },
        ],
      },
      {
        name: 'calc',
        description: 'Computes totals per year over full time series.',
        skills: [
          {
            id: 'run',
            name: 'Run',
            description: 'Runs.',
            tags: ['python'],
            examples: ['vacation budget per year'],
          },
        ],
      },
    ];
    const result = plan(
      'How many vacation days per year for full time staff according to our documents?',
      agents,
    );
    expect(shape(result)).toEqual(['docs-1=docs(answer)']);
  });

  it('plans for agents without skills from their name and description', () => {
    const agents: AgentSummary[] = [
      { name: 'weather', description: 'Forecasts the weather for a city.', skills: [] },
      { name: 'translator', description: 'Translates text between languages.', skills: [] },
    ];
    const result = plan(
      'what is the weather forecast for Oslo, then translate it to Norwegian',
      agents,
    );
    expect(shape(result)).toEqual(['weather-1=weather', 'translator-1=translator <- weather-1']);
  });

  it('makes node ids from any agent name', () => {
    const agents: AgentSummary[] = [
      { name: 'Ünïcode Agent!', description: 'Handles weather reports.', skills: [] },
    ];
    const result = plan('weather report please', agents);
    expect(result.nodes[0]?.id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it('stops at 32 nodes', () => {
    // Clauses in a chain are steps of their own (parts of one clause for one agent are one step).
    const request = Array.from({ length: 40 }, (_, index) => `research topic ${index}`).join(
      ', then ',
    );
    const result = plan(request);
    expect(result.nodes).toHaveLength(32);
    expect(result.rationale).toContain('stops at 32 steps');
  });

  it('is deterministic', () => {
    const request =
      'search the web for X and look up our internal docs on Y, then email bob@example.com';
    expect(planHeuristically({ request, agents: FLEET_AGENTS })).toEqual(
      planHeuristically({ request, agents: FLEET_AGENTS }),
    );
  });

  it('only ever names available agents', () => {
    for (const request of [
      'email the weekly report',
      'plot a histogram',
      'what is new on the internet',
      'reply to Alice',
    ]) {
      for (const node of plan(request).nodes) expect(FLEET_AGENT_NAMES).toContain(node.agent);
    }
  });
});

describe('planHeuristically with steering', () => {
  const twin = (name: string): AgentSummary => ({
    name,
    description: 'Searches the public web.',
    skills: [
      {
        id: 'search',
        name: 'Web search',
        description: 'Searches the web.',
        tags: ['web', 'search'],
        examples: [],
      },
    ],
  });
  const twins = [twin('alpha'), twin('beta')];

  it('ranks a preferred agent first when two agents match equally', () => {
    expect(
      planHeuristically({ request: 'search the web for X', agents: twins }).nodes[0]?.agent,
    ).toBe('alpha');
    const preferred = planHeuristically({
      request: 'search the web for X',
      agents: twins,
      steering: { prefer: ['beta'] },
    });
    expect(preferred.nodes.map((node) => node.agent)).toEqual(['beta']);
  });

  it('does not let a preference beat a clearly better match', () => {
    const result = planHeuristically({
      request: 'search the web for X',
      agents: FLEET_AGENTS,
      steering: { prefer: ['mail-agent'] },
    });
    expect(shape(result)).toEqual(['web-agent-1=web-agent(web-search)']);
  });

  it('adds a step for a required agent that no part went to', () => {
    const result = planHeuristically({
      request: 'search the web for X',
      agents: FLEET_AGENTS,
      steering: { require: ['code-agent'] },
    });
    expect(shape(result)).toEqual([
      'web-agent-1=web-agent(web-search)',
      'code-agent-1=code-agent(python)',
    ]);
    expect(result.nodes[1]?.task).toBe('Search the web for X.');
    expect(result.rationale).toContain('the request requires "code-agent"');
    expect(validatePlan(result, FLEET_AGENT_NAMES)).toEqual({ valid: true });
  });

  it('adds nothing for a required skill already planned', () => {
    const result = planHeuristically({
      request: 'search the web for X',
      agents: FLEET_AGENTS,
      steering: { require: ['web-search'] },
    });
    expect(shape(result)).toEqual(['web-agent-1=web-agent(web-search)']);
  });
});
