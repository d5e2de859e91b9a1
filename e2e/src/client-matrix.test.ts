/**
 * The client libraries our users write code with, against every route of a running fleet
 * (gateway, orchestrator, planner and the reasoning agent as processes, a scripted agent, real
 * Redis, a scripted upstream LLM): the Vercel AI SDK (`ai` 6 with `@ai-sdk/openai`'s `.chat()` and
 * `@ai-sdk/openai-compatible`) and LangChain JS (`@langchain/openai`'s `ChatOpenAI`). Each is
 * pointed at the gateway exactly as its docs say to point it at any OpenAI-compatible server, and
 * picks the route by model name (`fleet-orchestration`, `fleet-reasoning`) or by header. Text,
 * streaming, tools, structured output, token usage (chat completions and the Responses API: the AI
 * SDK's default provider call, LangChain's `useResponsesApi`), embeddings and errors (401, a 429
 * with its `retry-after`) are asserted as the library reports them. The official `openai` SDK's
 * own matrix is in gateway-openai-sdk, responses, reasoning and usage tests.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AIMessageChunk } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import {
  APICallError,
  embed,
  generateObject,
  generateText,
  stepCountIs,
  streamText,
  tool,
} from 'ai';
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
  if (context.lastUserMessage.includes('rate-limit me')) {
    return {
      error: {
        status: 429,
        message: 'Rate limit reached for requests',
        headers: { 'retry-after': '7' },
      },
    };
  }
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

/** A LangChain message's `usage_metadata` (its declared type does not survive the packages' split). */
function tokens(message: unknown): {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
} {
  return (message as { usage_metadata?: Record<string, number> } | undefined)?.usage_metadata ?? {};
}

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

    it('the default provider call (the Responses API) on every route, with usage', async () => {
      const provider = openai();
      const passthrough = await generateText({
        model: provider(UPSTREAM_MODEL),
        prompt: '[client] via responses',
      });
      expect(passthrough.text).toBe('Straight from the model: via responses');
      expect(passthrough.usage.inputTokens).toBeGreaterThan(0);

      const orchestrated = streamText({
        model: provider('fleet-orchestration'),
        prompt: 'Launch?',
      });
      let text = '';
      for await (const part of orchestrated.textStream) text += part;
      expect(text).toBe(COMPOSED);
      expect(await orchestrated.reasoningText).toContain('notes');
      const usage = await orchestrated.usage;
      expect(usage.inputTokens).toBeGreaterThan(0);
      expect(usage.outputTokens).toBeGreaterThan(0);

      const reasoned = await generateText({
        model: provider('fleet-reasoning'),
        prompt: 'What is six times seven?',
      });
      expect(reasoned.text).toBe(REASONED);
      expect(reasoned.usage.totalTokens).toBeGreaterThan(0);
    });

    it('token usage on orchestration through .chat(), streamed and not', async () => {
      const model = openai().chat('fleet-orchestration');
      const generated = await generateText({ model, prompt: 'When is the launch? (usage)' });
      expect(generated.usage.inputTokens).toBeGreaterThan(0);
      expect(generated.usage.outputTokens).toBeGreaterThan(0);
      expect(generated.usage.totalTokens).toBe(
        (generated.usage.inputTokens ?? 0) + (generated.usage.outputTokens ?? 0),
      );
      const streamed = streamText({ model, prompt: 'When is the launch? (streamed usage)' });
      await streamed.consumeStream();
      expect((await streamed.usage).inputTokens).toBeGreaterThan(0);
    });

    it('embed() passes through to the upstream', async () => {
      const { embedding } = await embed({
        model: openai().embedding('text-embedding-3-small'),
        value: 'the launch date',
      });
      expect(embedding.length).toBeGreaterThan(8);
      expect(embedding.every((value) => Number.isFinite(value))).toBe(true);
    });

    it("a 429 keeps the upstream's retry-after, so the SDK can back off", async () => {
      const failure = await generateText({
        model: openai().chat(UPSTREAM_MODEL),
        prompt: '[client] rate-limit me',
        maxRetries: 0,
      }).catch((error: unknown) => error);
      expect(APICallError.isInstance(failure)).toBe(true);
      const error = failure as APICallError;
      expect(error.statusCode).toBe(429);
      expect(error.isRetryable).toBe(true);
      expect(error.responseHeaders?.['retry-after']).toBe('7');
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

    it('usage_metadata on orchestration, invoked and streamed', async () => {
      const answer = await chat('fleet-orchestration').invoke('When is the launch? (lc usage)');
      expect(tokens(answer).input_tokens).toBeGreaterThan(0);
      expect(tokens(answer).output_tokens).toBeGreaterThan(0);

      let last: AIMessageChunk | undefined;
      for await (const chunk of await chat('fleet-orchestration').stream('Launch? (lc stream)')) {
        last = last === undefined ? chunk : last.concat(chunk);
      }
      expect(tokens(last).total_tokens).toBeGreaterThan(0);
    });

    it('the Responses API (useResponsesApi) on passthrough and orchestration', async () => {
      const responses = (model: string) =>
        new ChatOpenAI({
          model,
          apiKey: fleet.apiKey,
          maxRetries: 0,
          useResponsesApi: true,
          configuration: { baseURL: fleet.baseURL },
        });
      const passthrough = await responses(UPSTREAM_MODEL).invoke('[client] responses please');
      expect(passthrough.text).toBe('Straight from the model: responses please');
      const orchestrated = await responses('fleet-orchestration').invoke('Launch? (lc responses)');
      expect(orchestrated.text).toBe(COMPOSED);
      expect(tokens(orchestrated).input_tokens).toBeGreaterThan(0);
    });

    it('OpenAIEmbeddings passes through to the upstream', async () => {
      const embeddings = new OpenAIEmbeddings({
        model: 'text-embedding-3-small',
        apiKey: fleet.apiKey,
        maxRetries: 0,
        configuration: { baseURL: fleet.baseURL },
      });
      const vector = await embeddings.embedQuery('the launch date');
      expect(vector.length).toBeGreaterThan(8);
    });

    it('a 429 fails with the status, for LangChain to back off', async () => {
      const failure = await chat(UPSTREAM_MODEL)
        .invoke('[client] rate-limit me')
        .catch((error: unknown) => error);
      expect((failure as { status?: number }).status).toBe(429);
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
