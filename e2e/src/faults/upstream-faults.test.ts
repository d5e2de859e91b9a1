/**
 * Faults: the upstream LLM misbehaves under a running fleet (every service's
 * OPENAI_BASE_URL is a scripted server, LLM_TIMEOUT_MS short). Passthrough: an upstream that never
 * answers gets the client a 504 within the time-out; a stream the upstream cuts mid-way reaches the
 * official openai SDK as an error, never a clean end. Orchestration: a planner and composer whose
 * upstream hangs still end the run honestly within a bound.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { startScriptedOpenAI, type ScriptedOpenAI, type ScriptedReply } from '@fleet/testing';
import { gatewayApi } from '../support/gateway-api';
import { startFleet, type RunningFleet } from '../support/start-fleet';
import { fleetClient, serviceLogs, startRun, within } from './support';

/** The gateway's (and every service's) LLM_TIMEOUT_MS. */
const LLM_TIMEOUT_MS = 2000;

/** What the upstream answers next (every chat completion while set). */
let script: ScriptedReply = {};

describe('upstream faults', () => {
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startScriptedOpenAI({ respond: () => script });
    fleet = await startFleet({
      env: {
        OPENAI_BASE_URL: llm.baseURL,
        OPENAI_API_KEY: 'sk-e2e-upstream',
        LLM_TIMEOUT_MS: String(LLM_TIMEOUT_MS),
      },
      serviceEnv: { orchestrator: { MEMORY_ENABLED: 'false' } },
      agents: [
        {
          name: 'web',
          description: 'Searches the web and looks things up.',
          skills: [{ id: 'search', tags: ['web', 'search', 'look'], examples: ['look it up'] }],
          reply: { latencyMs: 50 },
        },
      ],
    });
    client = fleetClient(fleet, 60_000);
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
  }, 60_000);

  /** A passthrough request's outcome: the SDK's error (status, time taken) or its answer. */
  async function passthrough(stream: boolean): Promise<{ error?: unknown; ms: number }> {
    const begin = Date.now();
    try {
      const answer = await client.chat.completions.create({
        model: 'scripted-model',
        stream,
        messages: [{ role: 'user', content: 'Say hello' }],
      } as OpenAI.ChatCompletionCreateParamsNonStreaming);
      return { ms: Date.now() - begin, error: `no error: ${JSON.stringify(answer).slice(0, 300)}` };
    } catch (error) {
      return { error, ms: Date.now() - begin };
    }
  }

  it.each([false, true])(
    'answers 504 within LLM_TIMEOUT_MS when the upstream never answers (stream: %s)',
    async (stream) => {
      script = { hang: true };
      const { error, ms } = await within(
        passthrough(stream),
        20_000,
        () => `a hung passthrough\n${serviceLogs(fleet)}`,
      );
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
      expect(String((error as Error).message)).toMatch(/LLM_TIMEOUT_MS|time/i);
      expect(ms).toBeGreaterThanOrEqual(LLM_TIMEOUT_MS - 100);
      expect(ms).toBeLessThan(LLM_TIMEOUT_MS + 3000);
    },
    30_000,
  );

  it('raises an error in the openai SDK when the upstream cuts a stream mid-way, never a clean end', async () => {
    script = {
      content: 'One two three four five six seven eight nine ten eleven twelve.',
      chunkCount: 12,
      cutAfterChunks: 3,
    };
    const stream = await client.chat.completions.create({
      model: 'scripted-model',
      stream: true,
      messages: [{ role: 'user', content: 'Count to twelve' }],
    });
    let content = '';
    let failure: unknown;
    let finishReason: string | null | undefined;
    try {
      await within(
        (async () => {
          for await (const chunk of stream) {
            content += chunk.choices[0]?.delta.content ?? '';
            finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
          }
        })(),
        15_000,
        () => `a cut passthrough stream did not end\n${serviceLogs(fleet)}`,
      );
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(Error);
    expect(String(failure)).not.toMatch(/not end/);
    // What came before the cut was passed on; no finish_reason pretends it was complete.
    expect(content.length).toBeGreaterThan(0);
    expect(content).not.toContain('twelve.');
    expect(finishReason ?? null).toBeNull();
  }, 30_000);

  it('ends an orchestrated run honestly within a bound when the planner’s and composer’s upstream hangs', async () => {
    script = { hang: true };
    const run = await within(
      startRun(client, 'look it up on the web: the weather in Paris'),
      60_000,
      () => `the orchestrated request got no answer\n${serviceLogs(fleet)}`,
    );
    const end = await within(run.ended, 90_000, () => {
      run.abort();
      return `the run's stream did not end; events: ${JSON.stringify(run.events).slice(-1500)}\n${serviceLogs(fleet)}`;
    });
    const session = await gatewayApi(fleet, `/sessions/${run.sessionId}`);
    expect(session.status).toBe(200);
    const runEnd = run.events.find((event) => event.type === 'run-end');
    if (end.how === 'clean') {
      // The heuristic planner and the offline composer stood in: a real answer from the agent.
      expect(runEnd).toMatchObject({ state: 'completed' });
      expect(session.body['status']).toBe('completed');
      expect(run.content).toContain('web handled');
      expect(run.events.find((event) => event.type === 'plan-end')).toMatchObject({
        source: 'heuristic',
      });
      expect(session.body['result']).toMatchObject({ composer: 'offline' });
    } else {
      // Or a failure that says what failed.
      expect(end.error).toBeInstanceOf(OpenAI.APIError);
      expect(end.error?.message).toMatch(/upstream|LLM|time/i);
      expect(session.body['status']).toBe('failed');
    }
  }, 120_000);
});
