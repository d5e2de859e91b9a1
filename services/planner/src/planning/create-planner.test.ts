import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { planRequestSchema, validatePlan, type Plan, type PlanRequest } from '@fleet/a2a';
import { startScriptedOpenAI, type RecordedRequest, type ScriptedOpenAI } from '@fleet/testing';
import { FLEET_AGENT_NAMES, FLEET_AGENTS } from '../test-support/fleet-agents';
import { createPlanner, HEURISTIC_REQUESTED_REASON, OFFLINE_REASON } from './create-planner';

const REQUEST = 'find the travel policy in our documents, then email a summary to bob@example.com';

function planRequest(overrides: Partial<PlanRequest> = {}): PlanRequest {
  return planRequestSchema.parse({
    planRequest: {
      request: REQUEST,
      agents: FLEET_AGENTS,
      history: [
        { role: 'user', content: 'We are planning the Lisbon offsite.' },
        { role: 'assistant', content: 'Great, how can I help?' },
      ],
      ...overrides,
    },
  }).planRequest;
}

const validPlan: Plan = {
  nodes: [
    {
      id: 'policy',
      agent: 'rag-agent',
      skill: 'document-search',
      task: 'Find the travel policy.',
      dependsOn: [],
    },
    {
      id: 'email',
      agent: 'mail-agent',
      skill: 'mail-send',
      task: 'Email a summary of the travel policy to bob@example.com.',
      dependsOn: ['policy'],
    },
  ],
  rationale: 'Look the policy up, then send it.',
  confidence: 0.9,
};

const ghostPlan = {
  nodes: [
    { id: 'a', agent: 'ghost-agent', skill: null, task: 'Haunt.', dependsOn: [] },
    { id: 'b', agent: 'mail-agent', skill: 'mail-send', task: 'Send.', dependsOn: ['c'] },
    { id: 'c', agent: 'mail-agent', skill: null, task: 'Draft.', dependsOn: ['b'] },
  ],
  rationale: 'Spooky.',
  confidence: 0.5,
};

type ChatMessage = { role: string; content: string };

function messagesOf(request: RecordedRequest | undefined): ChatMessage[] {
  return (request?.body as { messages: ChatMessage[] }).messages;
}

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
}).getTracer('test');

describe('createPlanner', () => {
  let llm: ScriptedOpenAI;
  let client: OpenAI;
  let seen: number;
  const warnings: { object: object; message?: string | undefined }[] = [];
  const logger = { warn: (object: object, message?: string) => warnings.push({ object, message }) };

  beforeAll(async () => {
    llm = await startScriptedOpenAI();
    client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
  });
  afterAll(() => llm.close());
  beforeEach(() => {
    seen = llm.requests.length;
    warnings.length = 0;
    exporter.reset();
  });

  const planner = () => createPlanner({ llm: { client, model: 'planner-model' }, logger, tracer });
  const newRequests = () => llm.requests.slice(seen);

  it('uses a valid LLM plan after one attempt', async () => {
    llm.enqueue({ json: validPlan });
    const result = await planner().plan(planRequest());
    expect(result).toEqual({ plan: validPlan, source: 'llm', attempts: 1 });

    const [call] = newRequests();
    expect(newRequests()).toHaveLength(1);
    const body = call?.body as Record<string, any>;
    expect(body['model']).toBe('planner-model');
    expect(body['response_format']).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'plan', strict: true },
    });
    const messages = messagesOf(call);
    const [system] = messages;
    const user = messages.at(-1);
    // The prompt lists every agent with its skills, tags and examples.
    for (const agent of FLEET_AGENTS) {
      expect(system?.content).toContain(`## ${agent.name}`);
      for (const skill of agent.skills) {
        expect(system?.content).toContain(`skill id \`${skill.id}\` (${skill.name})`);
        expect(system?.content).toContain(skill.tags.join(', '));
        expect(system?.content).toContain(JSON.stringify(skill.examples[0]));
      }
    }
    expect(system?.content).toMatch(/smallest plan/);
    expect(system?.content).toMatch(/parallel/);
    expect(system?.content).toMatch(/dependsOn/);
    // The conversation as its own turns; the request alone as the last message.
    expect(messages.slice(1, -1)).toEqual([
      { role: 'user', content: 'We are planning the Lisbon offsite.' },
      { role: 'assistant', content: 'Great, how can I help?' },
    ]);
    expect(user).toEqual({ role: 'user', content: REQUEST });
  });

  it('puts the current date and the steering in the prompt', async () => {
    llm.enqueue({ json: validPlan });
    await createPlanner({
      llm: { client, model: 'planner-model' },
      logger,
      tracer,
      clock: () => new Date('2026-11-28T01:40:00Z'),
    }).plan(
      planRequest({
        steering: { prefer: ['rag-agent'], require: ['mail-agent/mail-send'] },
        steeringNote: 'The request requires "mail-agent/mail-send": add its step.',
      }),
    );
    const [system] = messagesOf(newRequests()[0]);
    expect(system?.content).toMatch(
      /^Current date and time: 2026-11-28 \(Saturday\), 01:40 UTC\.\n/,
    );
    expect(system?.content).toContain('Preferred by the user: rag-agent.');
    expect(system?.content).toContain('Required by the user: mail-agent/mail-send.');
    expect(system?.content).toContain('The request requires "mail-agent/mail-send": add its step.');
  });

  it('says nothing of steering when the request has none', async () => {
    llm.enqueue({ json: validPlan });
    await planner().plan(planRequest());
    const [system] = messagesOf(newRequests()[0]);
    expect(system?.content).toMatch(/^Current date and time: \d{4}-\d{2}-\d{2} \(\w+day\)/);
    expect(system?.content).not.toContain('Agent steering');
  });

  it('lists the attached files in the prompt and asks for them in the steps’ files', async () => {
    llm.enqueue({ json: validPlan });
    await planner().plan(
      planRequest({
        files: [
          { name: 'sales.csv', mediaType: 'text/csv', size: 2048 },
          { name: 'logo.png', mediaType: 'image/png', size: 3 * 1024 * 1024 },
        ],
      }),
    );
    const [system] = messagesOf(newRequests()[0]);
    expect(system?.content).toContain('Files attached to this request (2)');
    expect(system?.content).toContain(
      "Put a file's exact name in the files of every step that needs it",
    );
    expect(system?.content).toContain('- sales.csv (text/csv, 2 KiB)');
    expect(system?.content).toContain('- logo.png (image/png, 3.0 MiB)');
  });

  it('says nothing of attachments when none came', async () => {
    llm.enqueue({ json: validPlan });
    await planner().plan(planRequest());
    const [system] = messagesOf(newRequests()[0]);
    expect(system?.content).not.toContain('Files attached to this request');
  });

  it('gives the heuristic plan’s code step the attached files', async () => {
    const result = await planner().plan(
      planRequest({
        request: 'plot the monthly totals in a python chart',
        strategy: 'heuristic',
        files: [{ name: 'sales.csv', mediaType: 'text/csv', size: 20 }],
      }),
    );
    expect(result.plan.nodes.find((node) => node.agent === 'code-agent')?.files).toEqual([
      'sales.csv',
    ]);
  });

  it('puts the orchestrator’s validation error into the first prompt', async () => {
    llm.enqueue({ json: validPlan });
    await planner().plan(planRequest({ validationError: 'node "x" names agent "nope"' }));
    const [system] = messagesOf(newRequests()[0]);
    expect(system?.content).toContain(
      'An earlier plan for this request was rejected by the orchestrator: node "x" names agent "nope"',
    );
  });

  it('keeps prompt labels out of the tasks, even from a model that copies them', async () => {
    llm.enqueue({
      json: {
        ...validPlan,
        nodes: [
          {
            id: 'calc',
            agent: 'code-agent',
            skill: 'python',
            task: 'Write Python for: Conversation so far: none (this is the first message). Request to plan: Compute something in Python for me.',
            dependsOn: [],
          },
        ],
      },
    });
    const result = await planner().plan(
      planRequest({ request: 'Compute something in Python for me.', history: [] }),
    );
    expect(result.plan.nodes[0]?.task).toBe(
      'Write Python for: Compute something in Python for me.',
    );
    const messages = messagesOf(newRequests()[0]);
    for (const message of messages.slice(1))
      expect(message.content).not.toMatch(/Conversation so far|Request to plan/);
  });

  it('tells the model which agents cannot work, and why', async () => {
    llm.enqueue({ json: validPlan });
    const agents = FLEET_AGENTS.map((agent) =>
      agent.name === 'mail-agent'
        ? {
            ...agent,
            availability: { state: 'unconfigured' as const, reason: 'set MAIL_IMAP_HOST' },
          }
        : agent,
    );
    await planner().plan(planRequest({ agents }));
    const [system] = messagesOf(newRequests()[0]);
    expect(system?.content).toContain('Availability: unconfigured (set MAIL_IMAP_HOST).');
    expect(system?.content).toMatch(/Do not plan an agent whose availability is "unconfigured"/);
  });

  it('asks once more with the validation errors and uses the repaired plan', async () => {
    llm.enqueue({ json: ghostPlan }, { json: validPlan });
    const result = await planner().plan(planRequest());
    expect(result).toEqual({ plan: validPlan, source: 'llm', attempts: 2 });

    const calls = newRequests();
    expect(calls).toHaveLength(2);
    const second = messagesOf(calls[1]);
    // The first conversation, the rejected plan as the model's answer, then the problems.
    expect(second.slice(0, messagesOf(calls[0]).length)).toEqual(messagesOf(calls[0]));
    const first = messagesOf(calls[0]).length;
    expect(second[first]).toEqual({ role: 'assistant', content: JSON.stringify(ghostPlan) });
    const repair = second[first + 1]?.content ?? '';
    expect(repair).toContain('That plan cannot run');
    expect(repair).toContain('node "a" names agent "ghost-agent", which is not available');
    expect(repair).toContain('the plan has a cycle');
    expect(repair).toContain(FLEET_AGENT_NAMES.join(', '));
  });

  it('asks once more when the JSON does not fit the plan schema', async () => {
    llm.enqueue(
      { json: { nodes: [{ id: 'has space', agent: 'web-agent' }] } },
      { json: validPlan },
    );
    const result = await planner().plan(planRequest());
    expect(result).toMatchObject({ source: 'llm', attempts: 2 });
    const repair = messagesOf(newRequests()[1]).at(-1)?.content ?? '';
    expect(repair).toContain('does not fit the plan schema at nodes[0].id');
  });

  it('falls back to the heuristic planner when both plans are invalid', async () => {
    llm.enqueue({ json: ghostPlan }, { json: ghostPlan });
    const result = await planner().plan(planRequest());
    expect(result.source).toBe('heuristic');
    expect(result.attempts).toBe(2);
    expect(result.fallbackReason).toMatch(/still invalid after a second attempt/);
    expect(result.fallbackReason).toContain('ghost-agent');
    expect(result.plan.nodes.map((node) => node.agent)).toEqual(['rag-agent', 'mail-agent']);
    expect(validatePlan(result.plan, FLEET_AGENT_NAMES)).toEqual({ valid: true });
    expect(warnings).toHaveLength(1);
  });

  it('falls back to the heuristic planner when the LLM call fails', async () => {
    llm.enqueue({ error: { status: 500, message: 'upstream exploded' } });
    const result = await planner().plan(planRequest());
    expect(result).toMatchObject({ source: 'heuristic', attempts: 1 });
    expect(result.fallbackReason).toMatch(/^The LLM call failed: .*500/);
    expect(result.plan.nodes).toHaveLength(2);
    expect(newRequests()).toHaveLength(1);
  });

  it('falls back without a second attempt when the answer is not JSON', async () => {
    llm.enqueue({ content: 'Sure! First search, then mail.' });
    const result = await planner().plan(planRequest());
    expect(result).toMatchObject({ source: 'heuristic', attempts: 1 });
    expect(result.fallbackReason).toMatch(/not valid JSON/);
    expect(newRequests()).toHaveLength(1);
  });

  it('drops skill ids the agent does not have', async () => {
    const withBadSkill = structuredClone(validPlan);
    withBadSkill.nodes[0]!.skill = 'teleport';
    llm.enqueue({ json: withBadSkill });
    const result = await planner().plan(planRequest());
    expect(result.source).toBe('llm');
    expect(result.plan.nodes[0]).not.toHaveProperty('skill');
    expect(result.plan.nodes[1]?.skill).toBe('mail-send');
  });

  it('plans heuristically offline, without any LLM request', async () => {
    const result = await createPlanner({ tracer }).plan(planRequest());
    expect(result).toEqual({
      plan: expect.objectContaining({ nodes: expect.any(Array) }),
      source: 'heuristic',
      attempts: 0,
      fallbackReason: OFFLINE_REASON,
    });
    expect(result.plan.nodes.map((node) => node.agent)).toEqual(['rag-agent', 'mail-agent']);
    expect(newRequests()).toHaveLength(0);
  });

  it('plans heuristically when asked to, even with an LLM', async () => {
    const result = await planner().plan(planRequest({ strategy: 'heuristic' }));
    expect(result).toMatchObject({
      source: 'heuristic',
      attempts: 0,
      fallbackReason: HEURISTIC_REQUESTED_REASON,
    });
    expect(newRequests()).toHaveLength(0);
  });

  it('throws when aborted instead of falling back', async () => {
    llm.enqueue({ hang: true });
    const controller = new AbortController();
    const pending = planner().plan(planRequest(), { signal: controller.signal });
    await llm.waitForRequests(seen + 1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'CLIENT_CLOSED_REQUEST' });
  });

  it('records a planner.plan chain span around the LLM span', async () => {
    llm.enqueue({ json: validPlan });
    await planner().plan(planRequest());
    const spans = exporter.getFinishedSpans();
    const chain = spans.find((span) => span.name === 'planner.plan');
    expect(spans.map((span) => span.name)).toEqual(['llm.generate-object', 'planner.plan']);
    expect(chain?.attributes).toMatchObject({
      'openinference.span.kind': 'CHAIN',
      'input.value': REQUEST,
      'planner.source': 'llm',
      'planner.attempts': 1,
      'planner.nodes': 2,
    });
    expect(JSON.parse(String(chain?.attributes['output.value']))).toMatchObject({
      source: 'llm',
      plan: { nodes: [{ id: 'policy' }, { id: 'email' }] },
    });
  });
});
