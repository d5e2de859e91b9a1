import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { usesReadability } from './fetching/extract-readable-text';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import request from 'supertest';
import {
  createMessage,
  dataPart,
  RESULT_ARTIFACT_NAME,
  textPart,
  type Part,
  type Task,
} from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { UnauthenticatedError } from '@fleet/errors';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { errorDataSchema, webResultDataSchema, type WebResultData } from './agent';
import { createSearxngProvider, createTavilyProvider } from './search';
import { bootWebAgent, nodeParts, type RunningWebAgent } from './test-support/boot-web-agent';
import { createRecordingTracer } from '@fleet/testing';
import { startFakeWeb, type FakeWeb } from './test-support/start-fake-web';

const REDIS_URL = 'redis://127.0.0.1:6379';

function resultOf(task: Task): { text: string; data: WebResultData } {
  const artifact = task.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
  const text = artifact?.parts.find((part) => part.text !== undefined)?.text ?? '';
  return {
    text,
    data: webResultDataSchema.parse(artifact?.parts.find((part) => part.data !== undefined)?.data),
  };
}

function statusText(task: Task): string {
  return task.status.message?.parts.find((part) => part.text !== undefined)?.text ?? '';
}

function statusError(task: Task) {
  return errorDataSchema.parse(
    task.status.message?.parts.find((part) => part.data !== undefined)?.data,
  ).error;
}

async function send(agent: RunningWebAgent, parts: Part[]): Promise<Task> {
  return (await agent.client.sendMessage({ message: createMessage({ parts }) })) as Task;
}

describe('web-agent service', () => {
  let redis: Redis;
  let web: FakeWeb;
  let llm: ScriptedOpenAI;
  let unconfigured: RunningWebAgent;
  let searxng: RunningWebAgent;
  let tavily: RunningWebAgent;
  const tracing = createRecordingTracer();
  const prefix = `test:web-agent:${randomUUID()}`;

  beforeAll(async () => {
    // The first load of linkedom transforms its ESM-only dependencies (seconds on a cold cache):
    // paid here rather than inside a test's time limit.
    usesReadability();
    redis = new Redis(REDIS_URL);
    [web, llm] = await Promise.all([startFakeWeb(), startScriptedOpenAI({})]);
    web.pages.set('node-22', {
      title: 'Node.js 22 is now available',
      paragraphs: [
        'Node.js 22 was released on 24 April 2024 and becomes the active LTS line in October 2024.',
        'This release updates the V8 engine to version 12.4 and enables the WebSocket client by default.',
      ],
    });
    web.pages.set('node-lts', {
      title: 'Node.js release schedule',
      paragraphs: [
        'Every even-numbered Node.js release line is promoted to LTS six months after its release.',
      ],
    });
    unconfigured = await bootWebAgent({ redis, keyPrefix: `${prefix}:none`, provider: undefined });
    searxng = await bootWebAgent({
      redis,
      keyPrefix: `${prefix}:searxng`,
      provider: createSearxngProvider({ baseUrl: web.searxngUrl }),
      tracer: tracing.tracer,
    });
    tavily = await bootWebAgent({
      redis,
      keyPrefix: `${prefix}:tavily`,
      provider: createTavilyProvider({ apiKey: web.tavilyKey, baseUrl: web.tavilyUrl }),
      llm: {
        client: new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 }),
        model: 'web-model',
      },
      tracer: tracing.tracer,
    });
  }, 60_000);

  beforeEach(() => {
    web.results = [
      {
        title: 'Node.js 22 is now available',
        page: 'node-22',
        snippet: 'Node.js 22 is out with V8 12.4.',
        publishedDate: '2024-04-24',
      },
      {
        title: 'Node.js release schedule',
        page: 'node-lts',
        snippet: 'How Node.js release lines become LTS.',
      },
    ];
    web.providerStatus = undefined;
  });

  afterAll(async () => {
    await unconfigured?.close();
    await searxng?.close();
    await tavily?.close();
    await web?.close();
    await llm?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  describe('card and HTTP', () => {
    it('serves an Agent Card the planner can choose it by', async () => {
      const card = await discoverAgentCard(searxng.server.url);
      expect(card.name).toBe('web-agent');
      expect(card.capabilities.streaming).toBe(true);
      expect(card.skills.map((skill) => skill.id)).toEqual([
        'web-search',
        'news',
        'deep-research',
        'read-page',
      ]);
      for (const skill of card.skills) {
        expect(skill.tags.length).toBeGreaterThan(3);
        expect(skill.examples?.length).toBeGreaterThan(1);
      }
      expect(card.skills[0]?.tags).toEqual(expect.arrayContaining(['web', 'search', 'internet']));
      expect(card.skills[1]?.tags).toEqual(expect.arrayContaining(['news', 'latest']));
      expect(card.securitySchemes).toEqual({
        fleetInternal: { httpAuthSecurityScheme: { scheme: 'bearer' } },
      });
      const legacy = await request(searxng.server.server)
        .get('/.well-known/agent.json')
        .expect(200);
      expect(legacy.body.name).toBe('web-agent');
    });

    it('is ready when Redis answers, and refuses calls without the internal token', async () => {
      const ready = await request(searxng.server.server).get('/readyz').expect(200);
      expect(ready.body).toEqual({ status: 'ready', checks: { redis: 'ok' } });
      const card = await discoverAgentCard(searxng.server.url);
      const anonymous = new A2AClient({ card, timeoutMs: 5_000 });
      await expect(
        anonymous.sendMessage({ message: createMessage({ parts: [textPart('hello')] }) }),
      ).rejects.toBeInstanceOf(UnauthenticatedError);
    });

    it('rejects a message without a question', async () => {
      const task = await send(searxng, [textPart('   ')]);
      expect(task.status.state).toBe('TASK_STATE_REJECTED');
      expect(statusText(task)).toContain('needs a question');
    });
  });

  it('rejects a malformed fleet data part, saying what is wrong', async () => {
    const task = await send(searxng, [textPart('Node.js 22'), dataPart({ fleet: { nodeId: 7 } })]);
    expect(task.status.state).toBe('TASK_STATE_REJECTED');
    expect(statusText(task)).toContain('The fleet data part');
  });

  it('says what it is doing at each stage: searching, reading a page, summarising', async () => {
    const said: { text: string; stage: unknown }[] = [];
    for await (const event of searxng.client.sendStreamingMessage({
      message: createMessage({ parts: nodeParts({ question: 'search the web for Node.js 22' }) }),
    })) {
      if (!('statusUpdate' in event)) continue;
      const { status } = event.statusUpdate;
      if (status.state !== 'TASK_STATE_WORKING') continue;
      const parts = status.message?.parts ?? [];
      const data = parts.find((part) => part.data !== undefined)?.data as
        { progress?: { stage?: unknown } } | undefined;
      said.push({
        text: parts.find((part) => part.text !== undefined)?.text ?? '',
        stage: data?.progress?.stage,
      });
    }
    expect(said).toEqual([
      { text: 'Searching the web…', stage: undefined },
      {
        text: expect.stringMatching(/^Searching the web for ".*Node\.js 22.*"…$/),
        stage: 'searching',
      },
      { text: `Reading ${web.pageUrl('node-22')} and 1 more page…`, stage: 'reading' },
      { text: 'Summarising 2 sources…', stage: 'summarising' },
    ]);
  });

  describe('without a search provider', () => {
    it('fails a search task with a message that says how to configure one', async () => {
      const task = await send(
        unconfigured,
        nodeParts({ question: 'search the web for Node.js 22' }),
      );
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(task)).toMatch(
        /No web search provider is configured\. Set WEB_SEARCH_PROVIDER=tavily and TAVILY_API_KEY .* WEB_SEARCH_PROVIDER=searxng and SEARXNG_URL/,
      );
      expect(statusError(task).code).toBe('SERVICE_UNAVAILABLE');
    });

    it('still reads a page it is given', async () => {
      const task = await send(
        unconfigured,
        nodeParts({ question: `When was Node.js 22 released? See ${web.pageUrl('node-22')}` }),
      );
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const { text, data } = resultOf(task);
      expect(data.mode).toBe('read');
      expect(text).toContain('active LTS line in October 2024 [1].');
      expect(data.sources).toEqual([
        expect.objectContaining({
          url: web.pageUrl('node-22'),
          title: expect.stringContaining('Node.js 22') as unknown,
          fetched: true,
        }),
      ]);
    });
  });

  describe('SearXNG, offline', () => {
    it('searches, reads the top pages and answers extractively with citations', async () => {
      const before = web.requests.length;
      tracing.spans.length = 0;
      const task = await send(
        searxng,
        nodeParts({ question: 'Search the web for when Node.js 22 was released' }),
      );
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const { text, data } = resultOf(task);
      expect(text).toContain('Node.js 22 was released on 24 April 2024');
      expect(text).toMatch(/\[1\]/);
      expect(data).toMatchObject({
        mode: 'basic',
        provider: 'searxng',
        query: 'when Node.js 22 was released',
        answeredBy: 'extractive',
      });
      expect(data.sources[0]).toMatchObject({
        url: web.pageUrl('node-22'),
        fetched: true,
        publishedDate: '2024-04-24',
      });
      expect(data.results.map((result) => result.url)).toEqual([
        web.pageUrl('node-22'),
        web.pageUrl('node-lts'),
      ]);
      expect(data.pages).toEqual([
        expect.objectContaining({ url: web.pageUrl('node-22'), status: 'read' }),
        expect.objectContaining({ url: web.pageUrl('node-lts'), status: 'read' }),
      ]);
      const paths = web.requests.slice(before).map((entry) => entry.url.split('?')[0]);
      expect(paths).toEqual(
        expect.arrayContaining(['/searxng/search', '/pages/node-22', '/pages/node-lts']),
      );
      const kinds = tracing.spans.map((span) => [
        span.name,
        span.attributes['openinference.span.kind'],
      ]);
      expect(kinds).toEqual(
        expect.arrayContaining([
          ['web.search', 'TOOL'],
          ['web.fetch', 'TOOL'],
        ]),
      );
      expect(tracing.spans.filter((span) => span.name === 'web.fetch')).toHaveLength(2);
      const search = tracing.spans.find((span) => span.name === 'web.search');
      expect(search?.attributes['tool.name']).toBe('web_search');
      expect(String(search?.attributes['output.value'])).toContain(web.pageUrl('node-22'));
    });

    it('searches the news category for news questions', async () => {
      const before = web.requests.length;
      const task = await send(
        searxng,
        nodeParts({ question: 'latest news about Node.js 22', skill: 'news' }),
      );
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(resultOf(task).data.mode).toBe('news');
      const searchRequest = web.requests
        .slice(before)
        .find((entry) => entry.url.startsWith('/searxng/search'));
      expect(new URL(searchRequest?.url ?? '/', web.url).searchParams.get('categories')).toBe(
        'news',
      );
    });

    it('refuses results on private and metadata addresses, and answers from what it could read', async () => {
      web.results = [
        {
          title: 'Metadata',
          page: 'http://169.254.169.254/latest/meta-data/',
          snippet: 'Instance metadata.',
        },
        { title: 'Intranet', page: 'http://10.0.0.1/wiki', snippet: 'Internal wiki.' },
        ...web.results,
      ];
      const task = await send(searxng, nodeParts({ question: 'when was Node.js 22 released' }));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const { data } = resultOf(task);
      expect(data.pages.slice(0, 2)).toEqual([
        expect.objectContaining({
          url: 'http://169.254.169.254/latest/meta-data/',
          status: 'failed',
          error: expect.objectContaining({
            code: 'PERMISSION_DENIED',
            message: expect.stringContaining('the cloud metadata address') as unknown,
          }) as unknown,
        }),
        expect.objectContaining({
          url: 'http://10.0.0.1/wiki',
          status: 'failed',
          error: expect.objectContaining({ code: 'PERMISSION_DENIED' }) as unknown,
        }),
      ]);
      expect(data.sources.some((entry) => entry.url === web.pageUrl('node-22'))).toBe(true);
    });

    it('fails a read-page task whose URL is a forbidden address', async () => {
      const task = await send(
        searxng,
        nodeParts({
          question: 'summarise http://169.254.169.254/latest/meta-data/iam',
          skill: 'read-page',
        }),
      );
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(task)).toMatch(
        /^Refused to fetch http:\/\/169\.254\.169\.254\/latest\/meta-data\/iam: 169\.254\.169\.254 the cloud metadata address/,
      );
      expect(statusError(task).code).toBe('PERMISSION_DENIED');
    });

    it('reports a provider failure as a failed task', async () => {
      web.providerStatus = 403;
      const task = await send(searxng, nodeParts({ question: 'Node.js 22' }));
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(task)).toContain('add json to search.formats');
    });
  });

  describe('Tavily, with an LLM', () => {
    it('searches news, reads the pages and lets the model write the cited answer', async () => {
      llm.enqueue({
        content: 'Node.js 22 came out on 24 April 2024 [1] and becomes LTS in October 2024 [1][2].',
      });
      tracing.spans.length = 0;
      const before = web.requests.length;
      const task = await send(
        tavily,
        nodeParts({
          question:
            'What is the latest news about Node.js 22?\n\nResults of earlier steps:\n- Step docs (rag-agent): We run Node 20 [1].',
          dependencyOutputs: { docs: { agent: 'rag-agent', summary: 'We run Node 20 [1].' } },
        }),
      );
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const tavilyRequest = web.requests
        .slice(before)
        .find((entry) => entry.url === '/tavily/search');
      expect(JSON.parse(tavilyRequest?.body ?? '{}')).toMatchObject({
        query: 'Node.js 22',
        topic: 'news',
        search_depth: 'basic',
        max_results: 5,
      });
      const { text, data } = resultOf(task);
      expect(text).toBe(
        'Node.js 22 came out on 24 April 2024 [1] and becomes LTS in October 2024 [1][2].',
      );
      expect(data).toMatchObject({ mode: 'news', provider: 'tavily', answeredBy: 'llm' });
      expect(data.sources.map((entry) => entry.url)).toEqual([
        web.pageUrl('node-22'),
        web.pageUrl('node-lts'),
      ]);
      const prompt =
        (llm.requests.at(-1)?.body as { messages: { role: string; content: string }[] }).messages[1]
          ?.content ?? '';
      // The follow-up fetch put the page's own text in the prompt, beyond the snippet.
      expect(prompt).toContain('This release updates the V8 engine to version 12.4');
      expect(prompt).toContain('- docs (rag-agent): We run Node 20 [1].');
      expect(
        tracing.spans.map((span) => [span.name, span.attributes['openinference.span.kind']]),
      ).toEqual(
        expect.arrayContaining([
          ['web.search', 'TOOL'],
          ['web.fetch', 'TOOL'],
          ['web.answer', 'LLM'],
        ]),
      );
    });

    it('streams the answer in chunks while the model writes it, citations renumbered across cuts', async () => {
      llm.enqueue({
        content: 'It becomes LTS in October 2024 [2] and came out on 24 April 2024 [1, 2]. X [9].',
        chunkSize: 3,
        chunkDelayMs: 10,
      });
      const updates: { append: boolean; lastChunk: boolean; text: string; modelDone: boolean }[] =
        [];
      let taskId = '';
      for await (const event of tavily.client.sendStreamingMessage({
        message: createMessage({ parts: nodeParts({ question: 'Node.js 22 LTS news' }) }),
      })) {
        if (!('artifactUpdate' in event)) continue;
        const { artifact, append, lastChunk, taskId: id } = event.artifactUpdate;
        taskId = id;
        expect(artifact.name).toBe(RESULT_ARTIFACT_NAME);
        updates.push({
          append: append === true,
          lastChunk: lastChunk === true,
          text: artifact.parts[0]?.text ?? '',
          modelDone: llm.requests.at(-1)?.status !== undefined,
        });
      }
      const pieces = updates.filter((update) => update.append);
      expect(pieces.length).toBeGreaterThan(5);
      // The first piece left the agent while the model was still writing.
      expect(pieces[0]?.modelDone).toBe(false);
      const expected =
        'It becomes LTS in October 2024 [1] and came out on 24 April 2024 [2][1]. X.';
      expect(pieces.map((piece) => piece.text).join('')).toBe(expected);
      expect(updates.at(-1)).toMatchObject({ append: false, lastChunk: true, text: expected });
      const task = await tavily.client.getTask({ id: taskId });
      const { text, data } = resultOf(task);
      expect(text).toBe(expected);
      // Numbered in the order the answer first cites them.
      expect(data.sources.map((entry) => entry.url)).toEqual([
        web.pageUrl('node-lts'),
        web.pageUrl('node-22'),
      ]);
    });

    it('asks for an advanced search with raw content in deep mode', async () => {
      llm.enqueue({ content: 'Deep answer [1].' });
      const before = web.requests.length;
      const task = await send(
        tavily,
        nodeParts({ question: 'Node.js release lines', skill: 'deep-research' }),
      );
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const tavilyRequest = web.requests
        .slice(before)
        .find((entry) => entry.url === '/tavily/search');
      expect(JSON.parse(tavilyRequest?.body ?? '{}')).toMatchObject({
        search_depth: 'advanced',
        include_raw_content: true,
        max_results: 10,
      });
      expect(resultOf(task).data.mode).toBe('deep');
    });
  });
});
