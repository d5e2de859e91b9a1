/**
 * A run whose work fails for a reason of its task is an answer, not an API error
 * (docs/architecture.md §5, "Failures"): the real code agent runs a program that goes over its
 * memory limit or raises, and the official `openai` SDK, the Vercel AI SDK and LangChain each read
 * a normal answer (HTTP 200, a stream that ends with `finish_reason: "stop"`) that says what
 * happened and what to do, with `fleet.state` `failed`. The fleet failing itself still is an API
 * error: an agent that cannot be reached, the planner down.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import type { Plan } from '@fleet/a2a';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { gatewayApi } from './support/gateway-api';
import { startFleet, type RunningFleet } from './support/start-fleet';

const COMPOSED = 'The program could not finish.';

/** Asks for 2 GiB at once: over the 64 MiB address-space limit set below. */
const MEMORY_HOG = 'data = bytearray(2 * 1024 ** 3)\nprint(len(data))';
const RAISES = 'print("before")\nraise ValueError("no such account: 42")';

/** What the scripted planner plans next, and the program the scripted code writer writes. */
let nextPlan: Plan | undefined;
let nextProgram = '';

function codePlan(): Plan {
  return {
    nodes: [{ id: 'run', agent: 'code-agent', skill: 'run-python', task: 'Run it', dependsOn: [] }],
    rationale: 'a program to run',
    confidence: 0.9,
  };
}

/** The `fleet` object of a chat completion (or chunk), as the fleet adds it. */
function fleetOf(value: unknown): Record<string, unknown> | undefined {
  return (value as { fleet?: Record<string, unknown> }).fleet;
}

describe('a failed program read as an answer by the clients', () => {
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startScriptedOpenAI({
      respond: (recorded, context) => {
        const body = recorded.body as { messages?: { role: string; content: string }[] };
        const system = body.messages?.[0]?.content ?? '';
        if (system.includes('self-contained Python')) {
          return { content: `\`\`\`python\n${nextProgram}\n\`\`\`` };
        }
        if (context.jsonSchema !== undefined)
          return nextPlan === undefined ? {} : { json: nextPlan };
        return { content: COMPOSED };
      },
    });
    fleet = await startFleet({
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
      serviceEnv: { orchestrator: { NODE_TIMEOUT_MS: '30000', NODE_MAX_ATTEMPTS: '2' } },
      agents: [{ name: 'gone-agent', reply: { text: 'never' } }],
      agentServices: {
        'code-agent': {
          CODE_AGENT_ALLOW_UNAPPROVED: 'true',
          CODE_AGENT_MAX_ATTEMPTS: '1',
          CODE_AGENT_TIMEOUT_MS: '10000',
          CODE_AGENT_MEMORY_LIMIT: '64mb',
        },
      },
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
  }, 60_000);

  it('openai SDK: a program over its memory limit is a 200 answer saying why, fleet.state failed', async () => {
    nextPlan = codePlan();
    nextProgram = MEMORY_HOG;
    const completion = await client.chat.completions.create(
      {
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Run this Python code and tell me what it prints' }],
      },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    );
    const content = completion.choices[0]?.message.content ?? '';
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(content).toContain(COMPOSED);
    expect(content).toMatch(/memory limit/);
    expect(content).toContain('CODE_AGENT_MEMORY_LIMIT');
    const result = fleetOf(completion);
    expect(result).toMatchObject({
      state: 'failed',
      failedNodes: ['run'],
      nodes: [expect.objectContaining({ id: 'run', state: 'failed', failure: 'task' })],
    });
    // The session says the run's work failed, and what.
    const session = await gatewayApi(fleet, `/sessions/${String(result?.['sessionId'])}`);
    expect(session.body).toMatchObject({
      status: 'failed',
      result: { state: 'failed' },
      nodes: { run: { state: 'failed', failure: 'task' } },
    });
    expect(String(session.body['error'])).toMatch(/memory limit/);
  }, 60_000);

  it('openai SDK, streamed: a program that raises ends with finish_reason stop and the run-result', async () => {
    nextPlan = codePlan();
    nextProgram = RAISES;
    const stream = await client.chat.completions.create({
      model: 'fleet-orchestration',
      stream: true,
      messages: [{ role: 'user', content: 'Run this Python code and tell me what it prints' }],
    });
    let content = '';
    let finish: string | null | undefined;
    let result: Record<string, unknown> | undefined;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      const fleetObject = fleetOf(chunk);
      if (fleetObject?.['type'] === 'run-result') result = fleetObject;
    }
    expect(finish).toBe('stop');
    expect(content).toContain('ValueError: no such account: 42');
    expect(result).toMatchObject({ state: 'failed', failedNodes: ['run'] });
  }, 60_000);

  it('AI SDK: generateText and streamText read the failed program as text, finish reason stop', async () => {
    const model = createOpenAI({ baseURL: fleet.baseURL, apiKey: fleet.apiKey }).chat(
      'fleet-orchestration',
    );
    nextPlan = codePlan();
    nextProgram = MEMORY_HOG;
    const generated = await generateText({ model, prompt: 'Run this Python code (ai sdk)' });
    expect(generated.finishReason).toBe('stop');
    expect(generated.text).toMatch(/memory limit/);
    expect(fleetOf(generated.response.body)).toMatchObject({ state: 'failed' });

    nextPlan = codePlan();
    nextProgram = RAISES;
    const streamed = streamText({ model, prompt: 'Run this Python code (ai sdk stream)' });
    let text = '';
    for await (const piece of streamed.textStream) text += piece;
    expect(await streamed.finishReason).toBe('stop');
    expect(text).toContain('ValueError: no such account: 42');
  }, 90_000);

  it('LangChain: invoke and stream read the failed program as an answer', async () => {
    const chat = new ChatOpenAI({
      model: 'fleet-orchestration',
      apiKey: fleet.apiKey,
      configuration: { baseURL: fleet.baseURL },
      maxRetries: 0,
    });
    nextPlan = codePlan();
    nextProgram = MEMORY_HOG;
    const answer = await chat.invoke('Run this Python code (langchain)');
    expect(answer.text).toMatch(/memory limit/);
    expect(answer.response_metadata['finish_reason']).toBe('stop');

    nextPlan = codePlan();
    nextProgram = RAISES;
    let text = '';
    for await (const chunk of await chat.stream('Run this Python code (langchain stream)')) {
      text += chunk.text;
    }
    expect(text).toContain('ValueError: no such account: 42');
  }, 90_000);

  it('an agent that cannot be reached is an API error, not an answer', async () => {
    // Discovered while up, then gone: the orchestrator still has its card.
    nextPlan = {
      nodes: [{ id: 'look', agent: 'gone-agent', task: 'Look it up', dependsOn: [] }],
      rationale: 'one step',
      confidence: 0.9,
    };
    await fleet.agents['gone-agent']?.close();
    const failure = await client.chat.completions
      .create({ model: 'fleet-orchestration', messages: [{ role: 'user', content: 'Look it up' }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((failure as Error).message).toMatch(/gone-agent/);
  }, 60_000);

  it('the planner down is an API error', async () => {
    await fleet.crash('planner');
    const failure = await client.chat.completions
      .create({
        model: 'fleet-orchestration',
        messages: [{ role: 'user', content: 'Plan something' }],
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as Error).message).toMatch(/planner/i);
  }, 60_000);
});
