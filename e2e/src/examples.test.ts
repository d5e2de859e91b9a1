/**
 * examples/: every example program runs as its own process (`node examples/dist/<name>/main.js`,
 * what `pnpm --filter @fleet/examples <name>` runs) against one running fleet — gateway,
 * orchestrator, planner and the RAG agent as processes, scripted agents, a scripted upstream LLM —
 * configured only by the environment variables its README names. What each prints is asserted: the
 * answer, the approval asked and decided, the search hit, and the own A2A agent's answer in a run.
 * Needs the examples built (`tsc -b`, which `pnpm test` runs first).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import {
  getFreePort,
  startProcess,
  startScriptedOpenAI,
  type RespondFunction,
  type RunningProcess,
  type ScriptedOpenAI,
} from '@fleet/testing';
import { scriptedPlan } from './support/scripted-plans';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from './support/start-fleet';
import { REPO_ROOT } from './support/start-gateway';

const EXAMPLES_BUILT = path.join(REPO_ROOT, 'examples/dist');
const COMPOSED = 'The notes agent found that the launch is on 3 March.';
const MAILED = 'Mail sent to boss@example.test.';
const HANDBOOK = [
  '# Falcon project handbook',
  '',
  '## Leave',
  '',
  'Every employee has 28 days of annual leave, booked through the people portal.',
  '',
].join('\n');

/** The text of every message of a scripted request, joined. */
function promptOf(body: unknown): string {
  const messages = (body as { messages?: { content?: unknown }[] }).messages ?? [];
  return messages.map((message) => JSON.stringify(message.content ?? '')).join('\n');
}

/**
 * The upstream: plans by the question (the mail agent for an email, the unit converter for miles,
 * else the notes agent) and composes the answer from what the steps found.
 */
const upstream: RespondFunction = (recorded, context) => {
  const body = recorded.body as { response_format?: { json_schema?: { name?: string } } };
  if (body.response_format?.json_schema?.name === 'plan') {
    const question = context.lastUserMessage;
    if (question.includes('Email')) {
      return { json: scriptedPlan([{ id: 'mail-1', agent: 'mail' }]) };
    }
    if (question.includes('miles')) {
      const plan = scriptedPlan([{ id: 'convert-1', agent: 'unit-converter' }]);
      return {
        json: {
          ...plan,
          nodes: plan.nodes.map((node) => ({ ...node, task: 'How many miles is 42 km?' })),
        },
      };
    }
    return { json: scriptedPlan([{ id: 'notes-1', agent: 'notes' }]) };
  }
  if (context.jsonSchema !== undefined) return { json: {} };
  const prompt = promptOf(recorded.body);
  const converted = /\d+ km is [\d.]+ miles/.exec(prompt)?.[0];
  if (converted !== undefined) return { content: `The converter says: ${converted}` };
  if (prompt.includes(MAILED)) return { content: MAILED, chunkCount: 3 };
  return { content: COMPOSED, chunkCount: 4 };
};

/** Runs one built example to its end with the fleet's address and key; resolves with its stdout. */
async function runExample(name: string, env: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(EXAMPLES_BUILT, name, 'main.js')],
    { env: { ...process.env, ...env }, timeout: 30_000 },
  );
  return stdout;
}

describe('examples/ against a running fleet', () => {
  let llm: ScriptedOpenAI;
  let ownAgent: RunningProcess;
  let fleet: RunningFleet;
  let env: Record<string, string>;

  beforeAll(async () => {
    llm = await startScriptedOpenAI({ respond: upstream });
    const port = await getFreePort();
    ownAgent = await startProcess({
      name: 'example a2a-agent',
      args: [path.join(EXAMPLES_BUILT, 'a2a-agent/main.js')],
      env: { PORT: String(port), AGENT_TOKEN: E2E_INTERNAL_TOKEN },
      readyUrl: `http://127.0.0.1:${port}/healthz`,
    });
    // The upstream for the services that plan and compose; the RAG agent embeds locally.
    const model = { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' };
    fleet = await startFleet({
      agents: [
        {
          name: 'notes',
          skills: [{ id: 'notes', tags: ['notes'] }],
          reply: { text: 'Launch: 3 March.' },
        },
        {
          name: 'mail',
          skills: [{ id: 'send', tags: ['mail'] }],
          reply: {
            text: MAILED,
            approval: { action: 'send-mail', summary: 'Send the launch date to boss@example.test' },
          },
        },
      ],
      agentUrls: [`http://127.0.0.1:${port}`],
      ragAgent: true,
      serviceEnv: {
        planner: model,
        orchestrator: { ...model, MEMORY_ENABLED: 'false' },
        gateway: model,
      },
    });
    env = { FLEET_URL: fleet.gateway.url, FLEET_API_KEY: fleet.apiKey };
    const form = new FormData();
    form.append('file', new Blob([HANDBOOK], { type: 'text/markdown' }), 'handbook.md');
    const uploaded = await fetch(`${fleet.baseURL}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fleet.apiKey}` },
      body: form,
    });
    expect([200, 201]).toContain(uploaded.status);
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
    await ownAgent?.stop();
    await llm?.close();
  }, 60_000);

  it('openai-sdk: streams an answer, then approves a step through the REST route and reads the answer', async () => {
    const output = await runExample('openai-sdk', env);
    expect(output).toContain(`answer: ${COMPOSED}`);
    expect(output).toMatch(
      /approval asked: Send the launch date to boss@example\.test \(session \S+ is waiting_approval\)/,
    );
    expect(output).toContain('approved: HTTP 200');
    expect(output).toContain(`final answer: ${MAILED}`);
    expect(
      fleet.agents['mail']!.requests.some(
        (request) => request.approvalDecision?.decision === 'approve',
      ),
    ).toBe(true);
  }, 60_000);

  it('ai-sdk: streamText through the gateway', async () => {
    expect(await runExample('ai-sdk', env)).toContain(`answer: ${COMPOSED}`);
  }, 60_000);

  it('langchain: ChatOpenAI streaming through the gateway', async () => {
    expect(await runExample('langchain', env)).toContain(`answer: ${COMPOSED}`);
  }, 60_000);

  it('mcp-client: lists the tools, finds the uploaded passage, asks the fleet', async () => {
    const output = await runExample('mcp-client', { ...env, SEARCH_QUERY: 'annual leave days' });
    expect(output).toMatch(/tools: .*\bask\b/);
    expect(output).toMatch(/tools: .*\bsearch_documents\b/);
    expect(output).toMatch(/search hit: handbook\.md: .*28 days of annual leave/);
    expect(output).toMatch(new RegExp(`ask \\(completed, session \\S+\\): ${COMPOSED}`));
  }, 60_000);

  it('a2a-agent: the orchestrator plans with the own agent and its answer reaches the run', async () => {
    const client = new OpenAI({ baseURL: fleet.baseURL, apiKey: fleet.apiKey, maxRetries: 0 });
    const completion = await client.chat.completions.create(
      {
        model: 'fleet-orchestration',
        messages: [{ role: 'user', content: 'How far is 42 km in miles?' }],
      },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    );
    expect(completion.choices[0]?.message.content).toBe('The converter says: 42 km is 26.10 miles');
  }, 60_000);
});
