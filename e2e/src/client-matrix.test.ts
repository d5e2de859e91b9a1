/**
 * The client libraries our users write code with, against every route of a running fleet
 * (gateway, orchestrator, planner and the reasoning agent as processes, a scripted agent, real
 * Redis, a scripted upstream LLM): the Vercel AI SDK (`ai` 6 with `@ai-sdk/openai`'s `.chat()` and
 * `@ai-sdk/openai-compatible`) and LangChain JS (`@langchain/openai`'s `ChatOpenAI`). Each is
 * pointed at the gateway exactly as its docs say to point it at any OpenAI-compatible server, and
 * picks the route by model name (`fleet-orchestration`, `fleet-reasoning`) or by header. Text,
 * streaming, tools, structured output and errors are asserted as the library reports them.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AIMessageChunk } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { APICallError, generateObject, generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { startScriptedOpenAI, type RespondFunction, type ScriptedOpenAI } from '@fleet/testing';
import { scriptedPlan } from './support/scripted-plans';
import { startFleet, type RunningFleet } from './support/start-fleet';

const UPSTREAM_MODEL = 'gpt-4o-mini';
const COMPOSED = 'The notes agent found that the launch is on 3 March.';
const REASONED = 'Thought it through: the answer is 42.';
const WEATHER_ANSWER = 'It is sunny in Lisbon, 24 °C.';

/** The body of a scripted request, as far as these tests read it. */
interface ChatBody {
  messages?: { role: string; content?: unknown }[];
  response_format?: { type?: string; json_schema?: { name?: string } };
}

/**
 * The upstream: answers the fleet's own calls (planner, composer, reasoning agent, memory) by what
 * they are, and the clients' passthrough calls (which carry no system prompt of ours) as a model
 * would: plain text, a tool call then its answer, or JSON for structured output.
 */
const upstream: RespondFunction = (recorded, context) => {
  const body = recorded.body as ChatBody;
  const format = body.response_format?.json_schema?.name;
  if (format === 'plan') {
    return { json: scriptedPlan([{ id: 'notes-1', agent: 'notes' }]) };
  }
  if (format === 'user_memory') return { json: { facts: {}, preferences: {} } };
  if (context.toolNames.includes('calculate')) return { content: REASONED };
  const fromFleet =
    body.messages?.[0]?.role === 'system' && !context.lastUserMessage.includes('[client]');
  if (fromFleet && !context.jsonMode) return { content: COMPOSED, chunkCount: 4 };
  // A client's own request.
  if (context.toolNames.includes('weather')) {
    const last = body.messages?.at(-1);
    if (last?.role === 'tool') return { content: WEATHER_ANSWER };
    return { toolCalls: [{ name: 'weather', arguments: { city: 'Lisbon' } }] };
  }
  if (context.toolNames.includes('trip') || context.toolNames.includes('extract')) {
    const name = context.toolNames.includes('trip') ? 'trip' : 'extract';
    return { toolCalls: [{ name, arguments: { city: 'Lisbon', days: 3 } }] };
  }
  if (context.jsonMode) return { json: { city: 'Lisbon', days: 3 } };
  return {
    content: `Straight from the model: ${context.lastUserMessage.replace('[client] ', '')}`,
    chunkCount: 3,
  };
};

describe('client libraries on every route', () => {
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;

  beforeAll(async () => {
    llm = await startScriptedOpenAI({ respond: upstream, models: [UPSTREAM_MODEL] });
    const env = { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' };
    fleet = await startFleet({
      env,
      agents: [
        {
          name: 'notes',
          skills: [{ id: 'notes', tags: ['notes'] }],
          reply: { text: 'Launch: 3 March.' },
        },
      ],
      agentServices: { 'reasoning-agent': { REASONING_MAX_ITERATIONS: '3' } },
      serviceEnv: { orchestrator: { MEMORY_ENABLED: 'false' } },
    });
  }, 120_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
  }, 60_000);

  describe('Vercel AI SDK (ai 6)', () => {
    const openai = () => createOpenAI({ baseURL: fleet.baseURL, apiKey: fleet.apiKey });
    const compatible = () =>
      createOpenAICompatible({ name: 'fleet', baseURL: fleet.baseURL, apiKey: fleet.apiKey });

    it('passthrough: generateText and streamText with .chat()', async () => {
      const model = openai().chat(UPSTREAM_MODEL);
      const generated = await generateText({ model, prompt: '[client] hello' });
      expect(generated.text).toBe('Straight from the model: hello');
      expect(generated.finishReason).toBe('stop');

      const streamed = streamText({ model, prompt: '[client] stream please' });
      const parts: string[] = [];
      for await (const part of streamed.textStream) parts.push(part);
      expect(parts.join('')).toBe('Straight from the model: stream please');
      expect(parts.length).toBeGreaterThan(1);
    });

    it('passthrough: tools run to the final answer', async () => {
      const result = await generateText({
        model: openai().chat(UPSTREAM_MODEL),
        prompt: '[client] weather in Lisbon?',
        tools: {
          weather: tool({
            description: 'The weather in a city',
            inputSchema: z.object({ city: z.string() }),
            execute: async ({ city }) => Promise.resolve({ city, sky: 'sunny', celsius: 24 }),
          }),
        },
        stopWhen: stepCountIs(3),
      });
      expect(result.steps[0]?.toolCalls.map((call) => call.toolName)).toEqual(['weather']);
      expect(result.text).toBe(WEATHER_ANSWER);
    });

    it('passthrough: generateObject (structured output) even when an agent route is named', async () => {
      const { object } = await generateObject({
        model: openai().chat('fleet-orchestration'),
        schema: z.object({ city: z.string(), days: z.number() }),
        prompt: '[client] plan a trip',
      });
      expect(object).toEqual({ city: 'Lisbon', days: 3 });
    });

    it('orchestration by model name: text and stream, with the fleet progress kept out of the text', async () => {
      const model = compatible().chatModel('fleet-orchestration');
      const generated = await generateText({ model, prompt: 'When is the launch?' });
      expect(generated.text).toBe(COMPOSED);

      const streamed = streamText({ model, prompt: 'When is the launch, again?' });
      let text = '';
      for await (const part of streamed.textStream) text += part;
      expect(text).toBe(COMPOSED);
      // The progress lines arrive as reasoning (reasoning_content), which the SDK reports apart.
      expect(await streamed.reasoningText).toContain('notes');
    });

    it('reasoning by header: the answer as text', async () => {
      const model = createOpenAI({
        baseURL: fleet.baseURL,
        apiKey: fleet.apiKey,
        headers: { 'X-Routing-Mode': 'reasoning' },
      }).chat('fleet-reasoning');
      const generated = await generateText({ model, prompt: 'What is six times seven?' });
      expect(generated.text).toBe(REASONED);
    });

    it("a wrong key is an APICallError with status 401 and the gateway's message", async () => {
      const model = createOpenAI({ baseURL: fleet.baseURL, apiKey: 'sk-wrong-0000000000000' }).chat(
        UPSTREAM_MODEL,
      );
      const failure = await generateText({ model, prompt: 'hi', maxRetries: 0 }).catch(
        (error: unknown) => error,
      );
      expect(APICallError.isInstance(failure)).toBe(true);
      expect((failure as APICallError).statusCode).toBe(401);
      expect((failure as APICallError).message).toMatch(/key/i);
    });
  });

  describe('LangChain JS (@langchain/openai)', () => {
    const chat = (model: string, headers?: Record<string, string>) =>
      new ChatOpenAI({
        model,
        apiKey: fleet.apiKey,
        maxRetries: 0,
        configuration: {
          baseURL: fleet.baseURL,
          ...(headers === undefined ? {} : { defaultHeaders: headers }),
        },
      });

    it('passthrough: invoke and stream', async () => {
      const answer = await chat(UPSTREAM_MODEL).invoke('[client] hello');
      expect(answer.content).toBe('Straight from the model: hello');

      let text = '';
      let chunks = 0;
      for await (const chunk of await chat(UPSTREAM_MODEL).stream('[client] stream please')) {
        text += typeof chunk.content === 'string' ? chunk.content : '';
        chunks += 1;
      }
      expect(text).toBe('Straight from the model: stream please');
      expect(chunks).toBeGreaterThan(1);
    });

    it('passthrough: tools and structured output', async () => {
      const weather = langchainTool(
        async ({ city }: { city: string }) => Promise.resolve(`sunny in ${city}`),
        {
          name: 'weather',
          description: 'The weather in a city',
          schema: z.object({ city: z.string() }),
        },
      );
      const called = await chat(UPSTREAM_MODEL).bindTools([weather]).invoke('[client] weather?');
      expect(called.tool_calls?.map((call) => [call.name, call.args])).toEqual([
        ['weather', { city: 'Lisbon' }],
      ]);

      const structured = await chat(UPSTREAM_MODEL)
        .withStructuredOutput(z.object({ city: z.string(), days: z.number() }), { name: 'trip' })
        .invoke('[client] plan a trip');
      expect(structured).toEqual({ city: 'Lisbon', days: 3 });
    });

    it('orchestration by model name: invoke and stream', async () => {
      const answer = await chat('fleet-orchestration').invoke('When is the launch?');
      expect(answer.content).toBe(COMPOSED);

      let text = '';
      for await (const chunk of await chat('fleet-orchestration').stream('And the launch?')) {
        expect(chunk).toBeInstanceOf(AIMessageChunk);
        text += typeof chunk.content === 'string' ? chunk.content : '';
      }
      expect(text).toBe(COMPOSED);
    });

    it('reasoning by header: invoke', async () => {
      const answer = await chat('fleet-reasoning', { 'X-Routing-Mode': 'reasoning' }).invoke(
        'What is six times seven?',
      );
      expect(answer.content).toBe(REASONED);
    });

    it("a wrong key fails with the 401 and the gateway's message", async () => {
      const wrong = new ChatOpenAI({
        model: UPSTREAM_MODEL,
        apiKey: 'sk-wrong-0000000000000',
        maxRetries: 0,
        configuration: { baseURL: fleet.baseURL },
      });
      const failure = await wrong.invoke('hi').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Error);
      expect(
        (failure as { status?: number }).status ??
          (failure as { lc_error_code?: string }).lc_error_code,
      ).toBeDefined();
      expect(String((failure as Error).message)).toMatch(/401|key/i);
    });
  });

  it('used the scripted upstream for every passthrough call (nothing was answered elsewhere)', () => {
    const clientCalls = llm.requests.filter((request) =>
      JSON.stringify(request.body).includes('[client]'),
    );
    expect(clientCalls.length).toBeGreaterThan(5);
  });
});
