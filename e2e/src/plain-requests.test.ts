/**
 * Plain requests to an offline fleet as `pnpm fleet up` leaves it: no LLM upstream, the demo corpus
 * in the RAG agent, a mail agent with no mailbox, a web agent with no search provider and the code
 * agent in bubblewrap, every service its own process, asked through the gateway with the official
 * openai SDK. Handbook questions are planned on the agent that can answer them and the answer states
 * the fact; a program that runs out of memory, a request only an unconfigured agent could serve and a
 * question the documents do not answer are answers (HTTP 200) saying what happened, with the run's
 * state in `fleet`; no step's task carries the planner's prompt.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { documentMediaType, isDocumentFile } from '@fleet/runner';
import { E2E_KEY, REPO_ROOT } from './support/start-gateway';
import { startFleet, type RunningFleet } from './support/start-fleet';

interface FleetResult {
  sessionId: string;
  state?: string;
  plan: { nodes: { id: string; agent: string; task: string; dependsOn: string[] }[] };
  nodes: { id: string; agent: string; state: string; error?: string }[];
}

const DEMO_CORPUS = path.join(REPO_ROOT, 'services/rag-agent/demo-corpus');

describe('plain requests to an offline fleet', () => {
  let fleet: RunningFleet;
  let client: OpenAI;

  beforeAll(async () => {
    fleet = await startFleet({
      agents: [],
      ragAgent: true,
      // Offline: no OPENAI_BASE_URL or OPENAI_API_KEY for any service.
      agentServices: {
        'mail-agent': {},
        'web-agent': {},
        'code-agent': { CODE_AGENT_ALLOW_UNAPPROVED: 'true', CODE_AGENT_TIMEOUT_MS: '20000' },
      },
    });
    client = new OpenAI({ apiKey: E2E_KEY, baseURL: fleet.baseURL, maxRetries: 0 });
    for (const name of await readdir(DEMO_CORPUS)) {
      if (!isDocumentFile(name)) continue;
      const type = documentMediaType(name);
      const form = new FormData();
      form.append('file', new Blob([await readFile(path.join(DEMO_CORPUS, name))], { type }), name);
      const response = await fetch(`${fleet.baseURL}/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${E2E_KEY}` },
        body: form,
      });
      expect(response.status).toBeLessThan(300);
    }
  }, 240_000);

  afterAll(async () => {
    await fleet?.stop();
  }, 60_000);

  async function ask(question: string): Promise<{ content: string; fleet: FleetResult }> {
    const completion = await client.chat.completions.create(
      { model: 'fleet-orchestration', messages: [{ role: 'user', content: question }] },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    );
    return {
      content: completion.choices[0]?.message.content ?? '',
      fleet: (completion as unknown as { fleet: FleetResult }).fleet,
    };
  }

  function agentsOf(result: FleetResult): string[] {
    return [...new Set(result.plan.nodes.map((node) => node.agent))];
  }

  it.each([
    ['Who has to approve a 700 EUR purchase?', /finance/i],
    ['Can I work from another country, and for how long?', /30 days/i],
    ["From which day of being ill do I need a doctor's note?", /fourth day/i],
    ["If I'm sick, by what time do I have to tell my manager?", /9:30/],
    [
      'Who do I contact about expense reports, and what is the deadline for submitting them?',
      /60 days/i,
    ],
  ])(
    'answers %j from the handbook',
    async (question, fact) => {
      const { content, fleet: result } = await ask(question);
      expect(agentsOf(result)).toEqual([expect.stringMatching(/^rag-agent/)]);
      expect(content).toMatch(fact);
      expect(result.state).toBe('completed');
    },
    60_000,
  );

  it('runs a program given in the request as one step, and reads a memory limit as an answer', async () => {
    const program = 'data = bytearray(2 * 1024 * 1024 * 1024)\nprint(len(data))';
    const { content, fleet: result } = await ask(
      `Run this Python code and tell me what it prints:\n\n\`\`\`python\n${program}\n\`\`\``,
    );
    expect(result.plan.nodes).toHaveLength(1);
    expect(result.plan.nodes[0]).toMatchObject({ agent: expect.stringMatching(/^code-agent/) });
    expect(result.plan.nodes[0]?.task).toContain('bytearray(2 * 1024 * 1024 * 1024)');
    expect(result.state).toBe('failed');
    expect(content).toMatch(/memory/i);
  }, 90_000);

  it('says what to configure when only an unconfigured agent could serve', async () => {
    const { content, fleet: result } = await ask(
      'Search my inbox for the invoice from Acme and tell me its total.',
    );
    expect(agentsOf(result)).toEqual([expect.stringMatching(/^mail-agent/)]);
    expect(result.state).toBe('failed');
    expect(content).toMatch(/MAIL_IMAP_HOST/);
  }, 60_000);

  it('plans a question about "our docs" on the documents, and answers when they hold nothing', async () => {
    const { content, fleet: result } = await ask(
      'Summarise the onboarding checklist from our docs',
    );
    expect(agentsOf(result)).toEqual([expect.stringMatching(/^rag-agent/)]);
    expect(content.trim()).not.toBe('');
    expect(['completed', 'failed']).toContain(result.state);
  }, 60_000);

  it('keeps the planner’s prompt out of the steps’ tasks', async () => {
    const { fleet: result } = await ask('Compute the 20th Fibonacci number in Python for me.');
    for (const node of result.plan.nodes) {
      expect(node.task).not.toMatch(/Conversation so far|Request to plan/i);
    }
  }, 90_000);
});
