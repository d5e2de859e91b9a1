/**
 * The web agent end to end, on a running fleet (gateway, orchestrator, planner and the real web
 * agent as their own processes, real Redis): a question sent to the gateway with
 * `X-Routing-Mode: orchestration` is planned onto the web agent, which searches a local fake
 * provider (SearXNG's JSON API offline, Tavily's API with a scripted LLM), fetches the result pages
 * from a local server (allowlisted: it is on loopback) and answers with citations that reach the
 * final answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { Citation, NodeReport, Plan } from '@fleet/a2a';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { startFleet, type RunningFleet } from './support/start-fleet';

const FACT = 'The Kestrel 9 rocket made its first orbital flight on 3 February 2031 from Andøya.';
const QUESTION = 'Search the web: when did the Kestrel 9 rocket make its first orbital flight?';

interface FleetResult {
  sessionId: string;
  nodes: NodeReport[];
  citations: Citation[];
}

interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
}

/** A fake web: SearXNG's and Tavily's search APIs and the article pages they point at. */
async function startFakeWeb(): Promise<{
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}> {
  const requests: RecordedRequest[] = [];
  let base = '';
  const results = () => [
    {
      title: 'Kestrel 9 reaches orbit',
      url: `${base}/pages/kestrel-9`,
      content: 'The Kestrel 9 launch vehicle reached orbit on its first attempt.',
    },
    {
      title: 'Andøya Spaceport',
      url: `${base}/pages/andoya`,
      content: 'Andøya Spaceport is a launch site in northern Norway.',
    },
  ];
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', base);
      requests.push({
        method: incoming.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const json = (body: unknown) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (url.pathname === '/searxng/search') {
        return json({
          query: url.searchParams.get('q'),
          results: results().map((result) => ({ ...result, engine: 'fake' })),
        });
      }
      if (url.pathname === '/tavily/search') {
        if (incoming.headers.authorization !== 'Bearer tvly-e2e') {
          response.writeHead(401, { 'content-type': 'application/json' });
          return response.end('{"detail":{"error":"Unauthorized"}}');
        }
        return json({
          query: 'x',
          results: results().map((result, index) => ({ ...result, score: 0.9 - index / 10 })),
        });
      }
      const pages: Record<string, string[]> = {
        '/pages/kestrel-9': [
          FACT,
          'The two-stage vehicle carried a 1.2 tonne technology demonstrator to a 500 km polar orbit.',
        ],
        '/pages/andoya': ['Andøya Spaceport opened in 2024 and hosts small-satellite launchers.'],
      };
      const paragraphs = pages[url.pathname];
      if (paragraphs === undefined) {
        response.writeHead(404);
        return response.end();
      }
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><html><head><title>${url.pathname}</title></head><body><nav>Home | News</nav><article>${paragraphs
          .map((text) => `<p>${text}</p>`)
          .join('')}</article><script>track()</script></body></html>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function ask(fleet: RunningFleet, question: string) {
  const client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  const completion = await client.chat.completions.create(
    { model: 'fleet-orchestration', messages: [{ role: 'user', content: question }] },
    { headers: { 'X-Routing-Mode': 'orchestration' } },
  );
  return {
    content: completion.choices[0]?.message.content ?? '',
    fleet: (completion as unknown as { fleet: FleetResult }).fleet,
  };
}

describe('the web agent on a running fleet', () => {
  let web: Awaited<ReturnType<typeof startFakeWeb>>;

  beforeAll(async () => {
    web = await startFakeWeb();
  });

  afterAll(async () => {
    await web?.close();
  });

  describe('offline, with SearXNG', () => {
    let fleet: RunningFleet;

    beforeAll(async () => {
      fleet = await startFleet({
        // A documents agent beside it, so the planner has to choose.
        agents: [
          {
            name: 'docs-agent',
            skills: [{ id: 'documents', tags: ['documents', 'internal', 'docs', 'policy'] }],
          },
        ],
        agentServices: {
          'web-agent': {
            WEB_SEARCH_PROVIDER: 'searxng',
            SEARXNG_URL: `${web.url}/searxng`,
            WEB_FETCH_ALLOWLIST: '127.0.0.1',
          },
        },
      });
    }, 120_000);

    afterAll(async () => {
      await fleet?.stop();
    }, 60_000);

    it('routes a web question to the web agent, which searches, reads the pages and cites them', async () => {
      const before = web.requests.length;
      const { content, fleet: result } = await ask(fleet, QUESTION);
      expect(result.nodes).toEqual([
        expect.objectContaining({ agent: 'web-agent', state: 'completed' }),
      ]);
      const calls = web.requests.slice(before);
      const search = calls.find((call) => call.path === '/searxng/search');
      expect(search?.query.get('format')).toBe('json');
      expect(search?.query.get('q')).toContain('Kestrel 9');
      expect(calls.map((call) => call.path)).toEqual(
        expect.arrayContaining(['/pages/kestrel-9', '/pages/andoya']),
      );
      // The answer quotes the page (not only the snippet) with a marker, and lists the source.
      expect(content).toContain('first orbital flight on 3 February 2031');
      expect(content).toMatch(/3 February 2031 from Andøya \[1\]/);
      expect(content).toContain(`[1] Kestrel 9 reaches orbit — ${web.url}/pages/kestrel-9`);
      expect(result.citations[0]).toMatchObject({
        title: 'Kestrel 9 reaches orbit',
        url: `${web.url}/pages/kestrel-9`,
        agent: 'web-agent',
      });
    }, 60_000);
  });

  describe('with Tavily and an LLM', () => {
    let fleet: RunningFleet;
    let llm: ScriptedOpenAI;
    const plan: Plan = {
      nodes: [
        {
          id: 'news',
          agent: 'web-agent',
          skill: 'news',
          task: 'Latest news about the Kestrel 9 rocket',
          dependsOn: [],
        },
      ],
      rationale: 'a news question for the web',
      confidence: 0.9,
    };

    beforeAll(async () => {
      llm = await startScriptedOpenAI({
        respond: (request, context) => {
          if (context.jsonSchema !== undefined) return { json: plan };
          const body = request.body as { messages?: { role: string; content: string }[] };
          const system = body.messages?.find((message) => message.role === 'system')?.content ?? '';
          if (system.includes('web search results')) {
            return {
              content: 'Kestrel 9 reached orbit on its first flight on 3 February 2031 [1].',
            };
          }
          return { content: 'The Kestrel 9 rocket first reached orbit on 3 February 2031 [1].' };
        },
      });
      fleet = await startFleet({
        agents: [],
        env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
        agentServices: {
          'web-agent': {
            WEB_SEARCH_PROVIDER: 'tavily',
            TAVILY_API_KEY: 'tvly-e2e',
            TAVILY_BASE_URL: `${web.url}/tavily`,
            WEB_FETCH_ALLOWLIST: '127.0.0.1',
          },
        },
      });
    }, 120_000);

    afterAll(async () => {
      await fleet?.stop();
      await llm?.close();
    }, 60_000);

    it('searches news through Tavily, gives the model the fetched pages and keeps the citation', async () => {
      const before = web.requests.length;
      const { content, fleet: result } = await ask(
        fleet,
        'What is the latest news about the Kestrel 9 rocket?',
      );
      expect(result.nodes).toEqual([
        expect.objectContaining({ agent: 'web-agent', state: 'completed' }),
      ]);
      const search = web.requests.slice(before).find((call) => call.path === '/tavily/search');
      expect(JSON.parse(search?.body ?? '{}')).toMatchObject({
        topic: 'news',
        search_depth: 'basic',
      });
      const webPrompt = llm.requests
        .map((recorded) => recorded.body as { messages?: { role: string; content: string }[] })
        .find((body) => body.messages?.[0]?.content.includes('web search results'));
      // The page text reached the model through the follow-up fetch.
      expect(webPrompt?.messages?.[1]?.content).toContain('1.2 tonne technology demonstrator');
      expect(content).toContain('3 February 2031 [1]');
      expect(result.citations[0]).toMatchObject({
        url: `${web.url}/pages/kestrel-9`,
        agent: 'web-agent',
      });
      expect(content).toContain(`${web.url}/pages/kestrel-9`);
    }, 60_000);
  });
});
