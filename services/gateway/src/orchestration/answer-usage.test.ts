import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  dataPart,
  RESULT_ARTIFACT_NAME,
  stepUsage,
  sumRunUsage,
  textPart,
  type RunResult,
  type RunUsage,
  type StepUsage,
  type StreamResponse,
} from '@fleet/a2a';
import { createRecordingTracer } from '@fleet/testing';
import type { Span } from '@fleet/telemetry';
import { serve, type Served } from '../test-support/serve';
import { sseFrames } from '../test-support/sse-frames';
import { answerRun } from './answer-run';

const PLAN = {
  nodes: [{ id: 'n1', agent: 'web', task: 'search', dependsOn: [] }],
  rationale: 'one step',
  confidence: 0.9,
};

const known = (promptTokens: number, completionTokens: number) => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
  calls: 1,
  unknownCalls: 0,
});

const COMPLETE: RunUsage = sumRunUsage([
  stepUsage({ step: 'planner', agent: 'planner', usage: known(100, 10) }),
  stepUsage({ step: 'n1', agent: 'web', usage: known(200, 20) }),
  stepUsage({ step: 'composer', usage: known(300, 30) }),
]);
const UNKNOWN: RunUsage = sumRunUsage([
  // An offline planner: no model call.
  stepUsage({ step: 'planner', agent: 'planner', usage: { ...known(0, 0), calls: 0 } }),
  stepUsage({ step: 'n1', agent: 'sdk', usage: undefined }),
]);

function runResult(usage: RunUsage | undefined): RunResult {
  return {
    sessionId: 'sess-u',
    plan: PLAN,
    nodes: [{ id: 'n1', agent: 'web', state: 'completed', attempts: 1 }],
    citations: [],
    failedNodes: [],
    composer: 'llm',
    ...(usage === undefined ? {} : { usage }),
  };
}

/** The orchestrator's events of a finished run whose result reports `usage`. */
function events(usage: RunUsage | undefined): () => AsyncIterable<StreamResponse> {
  return async function* finished() {
    await Promise.resolve();
    yield {
      artifactUpdate: {
        taskId: 't1',
        contextId: 'c1',
        artifact: {
          artifactId: 'a1',
          name: RESULT_ARTIFACT_NAME,
          parts: [textPart('Paris.'), dataPart(runResult(usage))],
        },
        lastChunk: true,
      },
    };
    yield {
      statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } },
    };
  };
}

interface Scenario {
  usage: RunUsage | undefined;
  stream: boolean;
  includeUsage: boolean;
  gatewaySteps?: StepUsage[];
  span?: Span;
}

describe('answerRun usage', () => {
  let served: Served;
  let scenario: Scenario;

  beforeAll(async () => {
    served = await serve((_req, res) => {
      void answerRun({
        events: events(scenario.usage),
        orchestratorUrl: 'http://orchestrator.test',
        model: 'fleet-orchestration',
        stream: scenario.stream,
        includeUsage: scenario.includeUsage,
        gatewaySteps: scenario.gatewaySteps,
        res,
        responseHeaders: {},
        span: scenario.span,
      }).catch(() => res.destroy());
    });
  });

  afterAll(async () => {
    await served.close();
  });

  const answer = async (next: Scenario): Promise<string> => {
    scenario = next;
    return (await fetch(served.url)).text();
  };

  it('reports the run’s usage in the JSON answer the OpenAI way, with the steps in fleet.usage', async () => {
    const body = JSON.parse(
      await answer({ usage: COMPLETE, stream: false, includeUsage: false }),
    ) as { usage?: unknown; fleet: { usage?: RunUsage } };
    expect(body.usage).toEqual({ prompt_tokens: 600, completion_tokens: 60, total_tokens: 660 });
    expect(body.fleet.usage).toEqual(COMPLETE);
  });

  it('leaves usage out of the JSON answer when no count is known', async () => {
    const body = JSON.parse(
      await answer({ usage: UNKNOWN, stream: false, includeUsage: false }),
    ) as Record<string, unknown> & { fleet: { usage?: RunUsage } };
    expect(body).not.toHaveProperty('usage');
    expect(body.fleet.usage).toMatchObject({ calls: 0, complete: false });
  });

  it('sends a last chunk with usage before [DONE] when include_usage asks for it', async () => {
    const { chunks, done } = sseFrames(
      await answer({ usage: COMPLETE, stream: true, includeUsage: true }),
    );
    expect(done).toBe(true);
    const last = chunks.at(-1) as unknown as {
      choices: unknown[];
      usage: unknown;
      fleet: { type: string; usage: RunUsage };
    };
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 600, completion_tokens: 60, total_tokens: 660 });
    expect(last.fleet).toEqual({ type: 'usage', usage: COMPLETE });
    // The chunk before it is the usual stop chunk.
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('sends usage null in the last chunk when no count is known, and no usage chunk unasked', async () => {
    const unknown = sseFrames(await answer({ usage: UNKNOWN, stream: true, includeUsage: true }));
    expect((unknown.chunks.at(-1) as unknown as { usage: unknown }).usage).toBeNull();
    const unasked = sseFrames(await answer({ usage: COMPLETE, stream: true, includeUsage: false }));
    expect(unasked.chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(unasked.chunks.some((chunk) => 'usage' in chunk)).toBe(false);
  });

  it('adds the gateway’s own steps (the auto classifier) to the run’s usage', async () => {
    const classifier = stepUsage({ step: 'classifier', usage: known(40, 4) });
    const body = JSON.parse(
      await answer({
        usage: COMPLETE,
        stream: false,
        includeUsage: false,
        gatewaySteps: [classifier],
      }),
    ) as { usage?: unknown; fleet: { usage?: RunUsage } };
    expect(body.usage).toEqual({ prompt_tokens: 640, completion_tokens: 64, total_tokens: 704 });
    expect(body.fleet.usage?.steps[0]).toEqual(classifier);
    expect(body.fleet.usage?.calls).toBe(4);
  });

  it('reports no usage for a run whose orchestrator reports none', async () => {
    const body = JSON.parse(
      await answer({ usage: undefined, stream: false, includeUsage: false }),
    ) as Record<string, unknown> & { fleet: Record<string, unknown> };
    expect(body).not.toHaveProperty('usage');
    expect(body.fleet).not.toHaveProperty('usage');
  });

  it('records the run’s sums on the root span as OpenInference token counts', async () => {
    const { tracer, spans } = createRecordingTracer();
    const known = tracer.startSpan('POST /v1/chat/completions');
    await answer({ usage: COMPLETE, stream: false, includeUsage: false, span: known });
    expect(spans[0]?.attributes).toMatchObject({
      'llm.token_count.prompt': 600,
      'llm.token_count.completion': 60,
      'llm.token_count.total': 660,
      'fleet.usage.complete': true,
    });
    const unknown = tracer.startSpan('POST /v1/chat/completions');
    await answer({ usage: UNKNOWN, stream: false, includeUsage: false, span: unknown });
    expect(spans[1]?.attributes).toMatchObject({ 'fleet.usage.complete': false });
    expect(spans[1]?.attributes).not.toHaveProperty('llm.token_count.total');
  });
});
