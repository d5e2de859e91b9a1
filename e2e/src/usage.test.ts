/**
 * Token usage on the orchestration routes (docs/architecture.md §3, "Usage"), through the gateway
 * with the official openai SDK against a running fleet (gateway, orchestrator, planner and the code
 * agent as processes, a scripted LLM that gives every reply a usage of its own kind): the JSON
 * answer's `usage`, and with `stream_options.include_usage` the last chunk's, are the sum of the
 * usage of every model call the run made (planner, code writer, composer; the `auto` classifier),
 * with the breakdown per step in `fleet.usage`. An `@a2a-js/sdk` agent reports nothing: its step is
 * `reported: false` and the usage is not complete. An offline fleet reports no invented zeros.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { Plan, RunUsage, StepUsage } from '@fleet/a2a';
import {
  createShapesExecutor,
  SHAPES_AGENT_CARD,
  startScriptedOpenAI,
  startSdkAgent,
  type ScriptedOpenAI,
  type SdkAgent,
} from '@fleet/testing';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from './support/start-fleet';

/** What each kind of model call costs in this test, so every sum names its parts. */
const USAGE = {
  plan: { prompt_tokens: 101, completion_tokens: 11 },
  code: { prompt_tokens: 202, completion_tokens: 22 },
  compose: { prompt_tokens: 303, completion_tokens: 33 },
  route: { prompt_tokens: 404, completion_tokens: 44 },
} as const;

type CallKind = keyof typeof USAGE;

/** The step each kind of call belongs to. */
const STEP_OF: Record<CallKind, string> = {
  plan: 'planner',
  code: 'calc',
  compose: 'composer',
  route: 'classifier',
};

const CODE_PLAN: Plan = {
  nodes: [
    { id: 'calc', agent: 'code-agent', skill: 'run-python', task: 'Compute 6 * 7.', dependsOn: [] },
  ],
  rationale: 'a calculation for the code agent',
  confidence: 0.9,
};

interface FleetObject {
  usage?: RunUsage;
  nodes?: unknown[];
}

/** The usage a run should report: the sums of the calls it made, and a step per kind of call. */
function expectedUsage(calls: readonly CallKind[]): {
  totals: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  steps: Partial<StepUsage>[];
} {
  const steps = new Map<string, Partial<StepUsage>>();
  let prompt = 0;
  let completion = 0;
  for (const kind of calls) {
    const { prompt_tokens, completion_tokens } = USAGE[kind];
    prompt += prompt_tokens;
    completion += completion_tokens;
    const step = STEP_OF[kind];
    const known = steps.get(step) ?? {
      step,
      promptTokens: 0,
      completionTokens: 0,
      totalTokens: 0,
      calls: 0,
    };
    steps.set(step, {
      ...known,
      promptTokens: (known.promptTokens ?? 0) + prompt_tokens,
      completionTokens: (known.completionTokens ?? 0) + completion_tokens,
      totalTokens: (known.totalTokens ?? 0) + prompt_tokens + completion_tokens,
      calls: (known.calls ?? 0) + 1,
      unknownCalls: 0,
      reported: true,
    });
  }
  return {
    totals: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    },
    steps: [...steps.values()],
  };
}

describe('token usage on the orchestration routes', () => {
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let client: OpenAI;
  let desk: SdkAgent;
  /** The model calls the scripted LLM answered, by kind, in order. */
  const calls: CallKind[] = [];
  let nextPlan: Plan = CODE_PLAN;

  beforeAll(async () => {
    llm = await startScriptedOpenAI({
      respond: (recorded, context) => {
        const body = recorded.body as {
          messages?: { role: string; content: string }[];
          response_format?: { json_schema?: { name?: string } };
        };
        const system = body.messages?.[0]?.content ?? '';
        const schema = body.response_format?.json_schema?.name;
        const answer = (kind: CallKind, reply: object) => {
          calls.push(kind);
          return { ...reply, usage: USAGE[kind] };
        };
        if (schema === 'route_decision') {
          return answer('route', { json: { route: 'orchestration', reason: 'needs the agents' } });
        }
        if (context.jsonSchema !== undefined) return answer('plan', { json: nextPlan });
        if (system.includes('self-contained Python')) {
          return answer('code', { content: '```python\nprint(6 * 7)\n```' });
        }
        return answer('compose', { content: 'The answer is 42.' });
      },
    });
    desk = await startSdkAgent({
      ...SHAPES_AGENT_CARD,
      executor: createShapesExecutor(),
      token: E2E_INTERNAL_TOKEN,
    });
    fleet = await startFleet({
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
      serviceEnv: { orchestrator: { MEMORY_ENABLED: 'false', NODE_TIMEOUT_MS: '30000' } },
      agents: [],
      agentUrls: [desk.url],
      agentServices: {
        'code-agent': { CODE_AGENT_ALLOW_UNAPPROVED: 'true', CODE_AGENT_TIMEOUT_MS: '10000' },
      },
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  }, 120_000);

  afterAll(async () => {
    await fleet?.stop();
    await desk?.stop();
    await llm?.close();
  }, 60_000);

  it('reports the sum of every model call in the JSON answer, step by step', async () => {
    nextPlan = CODE_PLAN;
    calls.length = 0;
    const completion = await client.chat.completions.create(
      { model: 'fleet-orchestration', messages: [{ role: 'user', content: 'What is 6 * 7?' }] },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    );
    const expected = expectedUsage(calls);
    expect(calls).toEqual(expect.arrayContaining(['plan', 'code']));
    expect(completion.usage).toEqual(expected.totals);
    const fleetObject = (completion as unknown as { fleet: FleetObject }).fleet;
    expect(fleetObject.usage).toMatchObject({
      promptTokens: expected.totals.prompt_tokens,
      completionTokens: expected.totals.completion_tokens,
      totalTokens: expected.totals.total_tokens,
      calls: calls.length,
      unknownCalls: 0,
      complete: true,
    });
    expect(fleetObject.usage?.steps).toHaveLength(expected.steps.length);
    expect(fleetObject.usage?.steps).toEqual(
      expect.arrayContaining(
        expected.steps.map((step) =>
          expect.objectContaining(step.step === 'calc' ? { ...step, agent: 'code-agent' } : step),
        ),
      ),
    );
  }, 60_000);

  it('sends the same usage in a last chunk when the stream asks for it', async () => {
    nextPlan = CODE_PLAN;
    calls.length = 0;
    const stream = await client.chat.completions.create(
      {
        model: 'fleet-orchestration',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'And 6 * 7 once more?' }],
      },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    );
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1);
    const expected = expectedUsage(calls);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual(expected.totals);
    // Only the last chunk carries usage.
    expect(chunks.slice(0, -1).filter((chunk) => chunk.usage != null)).toEqual([]);
    const breakdown = (last as unknown as { fleet: { usage: RunUsage } }).fleet.usage;
    expect(breakdown.complete).toBe(true);
    expect(breakdown.steps.map((step) => step.step).sort()).toEqual(
      expected.steps.map((step) => step.step).sort(),
    );
  }, 60_000);

  it('adds the auto classifier’s call as the step classifier', async () => {
    nextPlan = CODE_PLAN;
    calls.length = 0;
    const completion = await client.chat.completions.create(
      {
        model: 'fleet-auto',
        messages: [{ role: 'user', content: 'Compute 6 * 7 in Python, please.' }],
      },
      { headers: { 'X-Routing-Mode': 'auto' } },
    );
    expect(calls[0]).toBe('route');
    const expected = expectedUsage(calls);
    expect(completion.usage).toEqual(expected.totals);
    const usage = (completion as unknown as { fleet: FleetObject }).fleet.usage;
    expect(usage?.steps).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ step: 'classifier', promptTokens: 404, calls: 1 }),
      ]),
    );
  }, 60_000);

  it('marks a step whose agent reports nothing, and the run’s usage as incomplete', async () => {
    nextPlan = {
      nodes: [
        {
          id: 'calc',
          agent: 'code-agent',
          skill: 'run-python',
          task: 'Compute 6 * 7.',
          dependsOn: [],
        },
        {
          id: 'hours',
          agent: 'ops-desk',
          skill: 'office-hours',
          task: 'Office hours?',
          dependsOn: [],
        },
      ],
      rationale: 'two steps',
      confidence: 0.9,
    };
    calls.length = 0;
    const completion = await client.chat.completions.create(
      {
        model: 'fleet-orchestration',
        messages: [{ role: 'user', content: 'What is 6 * 7, and when is the office open?' }],
      },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    );
    const expected = expectedUsage(calls);
    // What is known is reported; the SDK agent's part is not, and the response says so.
    expect(completion.usage).toEqual(expected.totals);
    const usage = (completion as unknown as { fleet: FleetObject }).fleet.usage;
    expect(usage?.complete).toBe(false);
    expect(usage?.steps).toEqual(
      expect.arrayContaining([
        {
          step: 'hours',
          agent: 'ops-desk',
          promptTokens: 0,
          completionTokens: 0,
          totalTokens: 0,
          calls: 0,
          unknownCalls: 0,
          reported: false,
        },
      ]),
    );
  }, 60_000);
});

describe('token usage of an offline run', () => {
  let fleet: RunningFleet;
  let client: OpenAI;

  beforeAll(async () => {
    fleet = await startFleet({
      agents: [{ name: 'notes', skills: [{ id: 'notes', tags: ['notes', 'meeting'] }] }],
      serviceEnv: { orchestrator: { MEMORY_ENABLED: 'false' } },
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
  }, 60_000);

  it('invents no zeros: no OpenAI usage, and fleet.usage counts no call', async () => {
    const completion = await client.chat.completions.create(
      { model: 'fleet-orchestration', messages: [{ role: 'user', content: 'Meeting notes?' }] },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    );
    expect(completion.usage).toBeUndefined();
    const usage = (completion as unknown as { fleet: FleetObject }).fleet.usage;
    expect(usage).toMatchObject({ calls: 0, unknownCalls: 0 });
    // The planner (offline: heuristic) reported that it called no model; the scripted agent said
    // nothing, so the run's usage is not complete.
    expect(usage?.steps).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ step: 'planner', calls: 0, reported: true }),
        expect.objectContaining({ agent: 'notes', reported: false }),
      ]),
    );
    expect(usage?.complete).toBe(false);

    const stream = await client.chat.completions.create(
      {
        model: 'fleet-orchestration',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Meeting notes again?' }],
      },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    );
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage).toBeNull();
  }, 60_000);
});
