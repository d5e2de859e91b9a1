/**
 * One orchestrated request is one trace (docs/architecture.md §9): gateway, orchestrator, planner and
 * every agent called export to one OTLP endpoint (protobuf, as Phoenix needs), and every span of
 * the run shares the gateway's trace id, with OpenInference kinds on the real work.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { Plan } from '@fleet/a2a';
import {
  startOtlpCapture,
  startProcess,
  startScriptedOpenAI,
  type CapturedSpan,
  type OtlpCapture,
  type RunningProcess,
  type ScriptedOpenAI,
} from '@fleet/testing';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from './support/start-fleet';
import { REPO_ROOT } from './support/start-gateway';

const plan: Plan = {
  nodes: [
    { id: 'search', agent: 'web', task: 'search the web', dependsOn: [] },
    { id: 'check', agent: 'rag', task: 'check our documents', dependsOn: ['search'] },
  ],
  rationale: 'search, then check',
  confidence: 0.8,
};

async function startAgentProcess(name: string, otlp: OtlpCapture): Promise<RunningProcess> {
  return startProcess({
    name,
    args: [
      path.join(REPO_ROOT, 'packages/testing/dist/bin/scripted-agent.js'),
      '--name',
      name,
      '--token',
      E2E_INTERNAL_TOKEN,
      '--latency-ms',
      '20',
      '--otel-endpoint',
      otlp.url,
      '--otel-project',
      'e2e-trace',
    ],
    env: { OTEL_BSP_SCHEDULE_DELAY: '100' },
    readyLine: /READY (\S+)/,
  });
}

describe('one trace per orchestrated request', () => {
  let otlp: OtlpCapture;
  let llm: ScriptedOpenAI;
  let agents: RunningProcess[] = [];
  let fleet: RunningFleet;

  beforeAll(async () => {
    otlp = await startOtlpCapture();
    llm = await startScriptedOpenAI({
      respond: (_request, context) =>
        context.jsonSchema !== undefined ? { json: plan } : { content: 'Composed.' },
    });
    agents = [await startAgentProcess('web', otlp), await startAgentProcess('rag', otlp)];
    fleet = await startFleet({
      agents: [],
      agentUrls: agents.map((agent) => agent.match![1]!),
      env: {
        OPENAI_BASE_URL: llm.baseURL,
        OPENAI_API_KEY: 'sk-e2e',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        PHOENIX_PROJECT_NAME: 'e2e-trace',
      },
    });
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    for (const agent of agents) await agent.stop();
    await llm?.close();
    await otlp?.close();
  }, 60_000);

  it('shares one trace id from the gateway through the planner and every agent', async () => {
    const client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
    const completion = await client.chat.completions.create(
      { model: 'fleet-orchestration', messages: [{ role: 'user', content: 'search then check' }] },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    );
    expect(completion.choices[0]?.message.content).toContain('Composed.');

    // Graceful stops flush every exporter (sdk.shutdown on SIGTERM).
    await fleet.stop();
    for (const agent of agents) await agent.stop();

    const spans = otlp.spans;
    const root = spans.find(
      (span) =>
        span.serviceName === 'gateway' &&
        span.parentSpanId === undefined &&
        span.name.startsWith('POST /v1/chat/completions'),
    );
    expect(root).toBeDefined();
    const trace = spans.filter((span) => span.traceId === root!.traceId);
    const services = new Set(trace.map((span) => span.serviceName));
    expect([...services].sort()).toEqual(['gateway', 'orchestrator', 'planner', 'rag', 'web']);

    // One tree: a single root, every parent inside the trace.
    const ids = new Set(trace.map((span) => span.spanId));
    expect(trace.filter((span) => span.parentSpanId === undefined)).toHaveLength(1);
    for (const span of trace) {
      if (span.parentSpanId !== undefined) expect(ids.has(span.parentSpanId)).toBe(true);
    }

    // Every span the agents made for A2A calls belongs to the run (none started a trace of its own).
    const agentWork = (service: string): CapturedSpan[] =>
      spans.filter(
        (span) =>
          span.serviceName === service && span.attributes['openinference.span.kind'] === 'AGENT',
      );
    for (const service of ['web', 'rag', 'planner']) {
      expect(agentWork(service).length).toBeGreaterThan(0);
      for (const span of agentWork(service)) expect(span.traceId).toBe(root!.traceId);
    }

    // OpenInference kinds on the real work.
    const kinds = (service: string): Set<unknown> =>
      new Set(
        trace
          .filter((span) => span.serviceName === service)
          .map((span) => span.attributes['openinference.span.kind']),
      );
    expect(root!.attributes['openinference.span.kind']).toBe('CHAIN');
    expect([...kinds('orchestrator')]).toEqual(expect.arrayContaining(['CHAIN', 'AGENT', 'LLM']));
    expect([...kinds('planner')]).toEqual(expect.arrayContaining(['CHAIN', 'LLM']));
    const sessionId = root!.attributes['session.id'];
    expect(typeof sessionId).toBe('string');
    expect(
      trace
        .filter((span) => span.serviceName === 'web')
        .every((span) => span.attributes['session.id'] === sessionId),
    ).toBe(true);
    expect(new Set(trace.map((span) => span.resource['openinference.project.name']))).toEqual(
      new Set(['e2e-trace']),
    );
    expect(otlp.contentTypes.every((type) => type === 'application/x-protobuf')).toBe(true);
  });
});
