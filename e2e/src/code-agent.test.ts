/**
 * The real code agent in a running fleet (gateway, orchestrator, planner and the code agent as
 * their own processes, real Redis, a scripted LLM as planner, code writer and composer), driven
 * through the gateway with the official openai SDK: the agent asks to run the program it wrote,
 * a person approves it through `/v1/sessions/{id}/approvals/{id}` and the program runs once in
 * bubblewrap; a person denies it and nothing runs. Its spans (LLM for writing, TOOL for running)
 * reach the OTLP collector.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { Plan } from '@fleet/a2a';
import {
  startOtlpCapture,
  startScriptedOpenAI,
  type CapturedSpan,
  type OtlpCapture,
  type ScriptedOpenAI,
} from '@fleet/testing';
import { gatewayApi, runUntilApproval, waitForSession } from './support/gateway-api';
import { startFleet, type RunningFleet } from './support/start-fleet';

const COMPOSED = 'Composed from the code agent.';

/** The program the scripted LLM writes for the next code task. */
let nextProgram = '';
let nextPlan: Plan | undefined;

function codePlan(task: string): Plan {
  return {
    nodes: [{ id: 'calc', agent: 'code-agent', skill: 'run-python', task, dependsOn: [] }],
    rationale: 'a calculation for the code agent',
    confidence: 0.9,
  };
}

/** True when the span's input mentions `text` (the program or the task, unique per test). */
function mentions(span: CapturedSpan, text: string): boolean {
  return String(span.attributes['input.value']).includes(text);
}

/** The code agent's spans of one name whose input mentions `text`. */
function codeAgentSpans(spans: CapturedSpan[], name: string, text: string): CapturedSpan[] {
  return spans.filter(
    (span) => span.serviceName === 'code-agent' && span.name === name && mentions(span, text),
  );
}

describe('code agent in the fleet', () => {
  let llm: ScriptedOpenAI;
  let otlp: OtlpCapture;
  let fleet: RunningFleet;
  let client: OpenAI;

  beforeAll(async () => {
    otlp = await startOtlpCapture();
    llm = await startScriptedOpenAI({
      respond: (recorded, context) => {
        const body = recorded.body as { messages?: { role: string; content: string }[] };
        const system = body.messages?.[0]?.content ?? '';
        if (system.includes('self-contained Python')) {
          return { content: `\`\`\`python\n${nextProgram}\n\`\`\`` };
        }
        if (context.jsonSchema !== undefined) {
          if (context.lastUserMessage.includes('instructions'))
            return { json: { mode: 'enhance', effectiveTask: '' } };
          return nextPlan === undefined ? {} : { json: nextPlan };
        }
        return { content: COMPOSED };
      },
    });
    fleet = await startFleet({
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
      serviceEnv: { orchestrator: { HITL_TIMEOUT_SECONDS: '120', NODE_TIMEOUT_MS: '30000' } },
      agents: [],
      agentServices: {
        'code-agent': {
          CODE_AGENT_TIMEOUT_MS: '10000',
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          OTEL_BSP_SCHEDULE_DELAY: '100',
        },
      },
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
    await otlp?.close();
  }, 60_000);

  it('serves a card the orchestrator discovers', async () => {
    const response = await fetch(
      `${fleet.services['code-agent']!.url}/.well-known/agent-card.json`,
    );
    const card = (await response.json()) as {
      name: string;
      skills: { id: string; tags: string[] }[];
    };
    expect(card.name).toBe('code-agent');
    expect(card.skills[0]).toMatchObject({ id: 'run-python' });
    expect(card.skills[0]?.tags).toEqual(expect.arrayContaining(['python', 'chart']));
  });

  it('runs the approved program once and returns its output', async () => {
    nextProgram = 'print("compound", round(10000 * 1.04 ** 15, 2))';
    nextPlan = codePlan('Compute 10,000 EUR at 4% compounded over 15 years.');
    const { sessionId, asked } = await runUntilApproval(client, 'What is 10k at 4% for 15 years?');
    expect(asked).toMatchObject({
      kind: 'node',
      nodeId: 'calc',
      agent: 'code-agent',
      action: 'run-code',
      risk: 'medium',
    });
    expect(asked['preview']).toBe(`${nextProgram}\n`);

    const decided = await gatewayApi(
      fleet,
      `/sessions/${sessionId}/approvals/${String(asked['approvalId'])}`,
      {
        method: 'POST',
        body: JSON.stringify({ decision: 'approve' }),
      },
    );
    expect(decided.status).toBe(200);
    const again = await gatewayApi(
      fleet,
      `/sessions/${sessionId}/approvals/${String(asked['approvalId'])}`,
      {
        method: 'POST',
        body: JSON.stringify({ decision: 'approve' }),
      },
    );
    expect(again.status).toBe(409);

    const done = await waitForSession(
      fleet,
      sessionId,
      (session) => session['status'] === 'completed',
    );
    const node = done['nodes']['calc'];
    expect(node['state']).toBe('completed');
    expect(node['summary']).toContain('compound 18009.44');
    expect(node['data']).toMatchObject({
      stdout: 'compound 18009.44\n',
      exitCode: 0,
      outcome: 'ok',
      codeSource: 'llm',
      sandbox: 'bubblewrap',
      approved: true,
    });
    expect(done['result']['text']).toContain(COMPOSED);

    // One LLM span wrote it and exactly one TOOL span ran it.
    await otlp.waitForSpans((spans) =>
      spans.some((span) => span.name === 'code_agent.run_code' && mentions(span, 'compound')),
    );
    const runs = codeAgentSpans(otlp.spans, 'code_agent.run_code', 'compound');
    expect(runs).toHaveLength(1);
    expect(runs[0]?.attributes).toMatchObject({
      'openinference.span.kind': 'TOOL',
      'tool.name': 'run-python',
      'code_agent.outcome': 'ok',
    });
    const writes = codeAgentSpans(otlp.spans, 'code_agent.write_code', '10,000 EUR at 4%');
    expect(writes).toHaveLength(1);
    expect(writes[0]?.attributes['openinference.span.kind']).toBe('LLM');
    expect(String(writes[0]?.attributes['llm.output_messages.0.message.content'])).toContain(
      'compound',
    );
  }, 90_000);

  it('runs nothing when the program is denied, and says so', async () => {
    nextProgram = 'print("must never run")';
    nextPlan = codePlan('Print a line.');
    const { sessionId, asked } = await runUntilApproval(client, 'Print a line for me.');
    expect(asked).toMatchObject({ nodeId: 'calc', agent: 'code-agent', action: 'run-code' });

    const decided = await gatewayApi(
      fleet,
      `/sessions/${sessionId}/approvals/${String(asked['approvalId'])}`,
      {
        method: 'POST',
        body: JSON.stringify({ decision: 'deny', instructions: 'not without a review' }),
      },
    );
    expect(decided.status).toBe(200);
    const done = await waitForSession(
      fleet,
      sessionId,
      (session) => session['status'] === 'completed',
    );
    expect(done['nodes']['calc']['state']).toBe('rejected');
    expect(String(done['nodes']['calc']['error'] ?? done['nodes']['calc']['summary'])).toMatch(
      /not without a review|denied/i,
    );
    expect(done['approvals']).toEqual([
      expect.objectContaining({ nodeId: 'calc', status: 'denied', action: 'run-code' }),
    ]);
    expect(done['result']['failedNodes']).toContain('calc');

    // The agent wrote the program and ended the continuation REJECTED (its turn's span has
    // arrived, so a run within it would have too) without running anything.
    await otlp.waitForSpans((spans) =>
      spans.some(
        (span) => span.name === 'code_agent.write_code' && mentions(span, 'Print a line.'),
      ),
    );
    await otlp.waitForSpans((spans) =>
      spans.some(
        (span) =>
          span.serviceName === 'code-agent' &&
          span.attributes['a2a.continuation'] === true &&
          span.attributes['a2a.task_state'] === 'TASK_STATE_REJECTED',
      ),
    );
    expect(codeAgentSpans(otlp.spans, 'code_agent.run_code', 'must never run')).toEqual([]);
  }, 90_000);
});
