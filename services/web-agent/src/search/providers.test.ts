import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startFakeWeb, type FakeWeb } from '../test-support/start-fake-web';
import { createSearxngProvider } from './create-searxng-provider';
import { createTavilyProvider } from './create-tavily-provider';

describe('search providers', () => {
  let web: FakeWeb;

  beforeAll(async () => {
    web = await startFakeWeb();
  });

  beforeEach(() => {
    web.providerStatus = undefined;
    web.results = [
      { title: 'First', page: 'first', snippet: 'The first result.', publishedDate: '2026-11-20' },
      { title: 'Second', page: 'https://second.example/page', snippet: 'The second result.' },
      { title: 'Third', page: 'third', snippet: 'The third result.' },
    ];
  });

  afterAll(async () => {
    await web.close();
  });

  function lastRequest() {
    const request = web.requests.at(-1);
    if (!request) throw new Error('no request');
    return request;
  }

  describe('createTavilyProvider', () => {
    const tavily = () => createTavilyProvider({ apiKey: web.tavilyKey, baseUrl: web.tavilyUrl });

    it('posts a basic search with the key as a bearer token and maps the results', async () => {
      const response = await tavily().search({ query: 'node 22', mode: 'basic', maxResults: 2 });
      const request = lastRequest();
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/tavily/search');
      expect(request.headers.authorization).toBe(`Bearer ${web.tavilyKey}`);
      expect(JSON.parse(request.body)).toEqual({
        query: 'node 22',
        search_depth: 'basic',
        topic: 'general',
        max_results: 2,
        include_raw_content: false,
        include_answer: false,
      });
      expect(response).toEqual({
        provider: 'tavily',
        query: 'node 22',
        results: [
          {
            title: 'First',
            url: web.pageUrl('first'),
            snippet: 'The first result.',
            publishedDate: '2026-11-20',
            score: 0.9,
          },
          {
            title: 'Second',
            url: 'https://second.example/page',
            snippet: 'The second result.',
            score: 0.8,
          },
        ],
      });
    });

    it('asks for news with topic news, and for deep with advanced depth and raw content', async () => {
      await tavily().search({ query: 'ai act', mode: 'news', maxResults: 5 });
      expect(JSON.parse(lastRequest().body)).toMatchObject({
        topic: 'news',
        search_depth: 'basic',
      });
      const deep = await tavily().search({ query: 'ai act', mode: 'deep', maxResults: 10 });
      expect(JSON.parse(lastRequest().body)).toMatchObject({
        topic: 'general',
        search_depth: 'advanced',
        include_raw_content: true,
        max_results: 10,
      });
      expect(deep.results[0]?.rawContent).toBe('The first result. (raw content)');
    });

    it('says to check TAVILY_API_KEY when the key is refused', async () => {
      const wrong = createTavilyProvider({ apiKey: 'tvly-wrong', baseUrl: web.tavilyUrl });
      await expect(wrong.search({ query: 'x', mode: 'basic', maxResults: 1 })).rejects.toThrow(
        /Tavily refused the API key \(HTTP 401\): check TAVILY_API_KEY/,
      );
    });

    it('reports an unreachable API and a server error', async () => {
      web.providerStatus = 500;
      await expect(tavily().search({ query: 'x', mode: 'basic', maxResults: 1 })).rejects.toThrow(
        /Tavily answered HTTP 500/,
      );
      const down = createTavilyProvider({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1' });
      await expect(down.search({ query: 'x', mode: 'basic', maxResults: 1 })).rejects.toThrow(
        /Could not reach Tavily at http:\/\/127\.0\.0\.1:1/,
      );
    });
  });

  describe('createSearxngProvider', () => {
    const searxng = () => createSearxngProvider({ baseUrl: web.searxngUrl });

    it('asks for JSON in the general category and cuts the results to maxResults', async () => {
      const response = await searxng().search({ query: 'node 22', mode: 'basic', maxResults: 2 });
      const url = new URL(lastRequest().url, web.url);
      expect(url.pathname).toBe('/searxng/search');
      expect(Object.fromEntries(url.searchParams)).toEqual({
        q: 'node 22',
        format: 'json',
        categories: 'general',
        pageno: '1',
      });
      expect(response.provider).toBe('searxng');
      expect(response.results).toEqual([
        {
          title: 'First',
          url: web.pageUrl('first'),
          snippet: 'The first result.',
          publishedDate: '2026-11-20',
          score: 1,
          engine: 'duckduckgo',
        },
        {
          title: 'Second',
          url: 'https://second.example/page',
          snippet: 'The second result.',
          score: 0.5,
          engine: 'duckduckgo',
        },
      ]);
    });

    it('searches the news category in news mode and reads a second page in deep mode', async () => {
      await searxng().search({ query: 'ai act', mode: 'news', maxResults: 5 });
      expect(new URL(lastRequest().url, web.url).searchParams.get('categories')).toBe('news');
      const before = web.requests.length;
      const deep = await searxng().search({ query: 'ai act', mode: 'deep', maxResults: 10 });
      const pages = web.requests
        .slice(before)
        .map((request) => new URL(request.url, web.url).searchParams.get('pageno'));
      expect(pages).toEqual(['1', '2']);
      // The second page repeats the first here: duplicates are dropped.
      expect(deep.results).toHaveLength(3);
    });

    it('explains a 403: the json format is not enabled', async () => {
      web.providerStatus = 403;
      await expect(searxng().search({ query: 'x', mode: 'basic', maxResults: 1 })).rejects.toThrow(
        /SearXNG refused format=json \(HTTP 403\): add json to search\.formats/,
      );
    });
  });
});
