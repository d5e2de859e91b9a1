import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the fake web received. */
export interface FakeWebRequest {
  method: string;
  /** Path with the query string. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A page the fake web serves at `/pages/<name>`. */
export interface FakePage {
  title: string;
  /** Paragraphs of the article. */
  paragraphs: string[];
}

/** A search result the fake providers answer with; `page` links it to a served page. */
export interface FakeResult {
  title: string;
  /** A page name served here, or a full URL. */
  page: string;
  snippet: string;
  publishedDate?: string;
}

/** A raw handler for a path under `/raw/`, for limits and redirects. */
export type RawRoute = (response: ServerResponse, request: FakeWebRequest) => void;

/** Local HTTP servers that speak Tavily's and SearXNG's APIs and serve the pages they point at. */
export interface FakeWeb {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The Tavily API base URL (`POST <tavilyUrl>/search`). */
  tavilyUrl: string;
  /** The SearXNG base URL (`GET <searxngUrl>/search?format=json`). */
  searxngUrl: string;
  /** The URL of a served page. */
  pageUrl(name: string): string;
  pages: Map<string, FakePage>;
  /** The results the providers answer with, whatever the query. */
  results: FakeResult[];
  /** Extra routes under `/raw/<name>`. */
  raw: Map<string, RawRoute>;
  /** Set to answer the provider APIs with this status (and a small error body). */
  providerStatus: number | undefined;
  requests: FakeWebRequest[];
  /** The Tavily API key expected in `Authorization: Bearer`. */
  tavilyKey: string;
  close(): Promise<void>;
}

function html(page: FakePage): string {
  const paragraphs = page.paragraphs.map((text) => `<p>${text}</p>`).join('\n');
  return `<!doctype html><html><head><title>${page.title}</title>
<meta name="description" content="${page.title}: a test page"></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a> | Cookie settings</nav>
<article><h1>${page.title}</h1>${paragraphs}</article>
<footer>Copyright Fake Web. All rights reserved.</footer><script>var tracking = 1;</script></body></html>`;
}

/**
 * Starts the fake web on 127.0.0.1 and a free port. Fetching its pages needs `127.0.0.1` in the
 * allowlist (it is a loopback address).
 *
 * @example
 * const web = await startFakeWeb();
 * web.pages.set('node', { title: 'Node 22', paragraphs: ['Node.js 22 was released in April 2024.'] });
 * web.results.push({ title: 'Node 22', page: 'node', snippet: 'Node 22 is out' });
 */
export async function startFakeWeb({ tavilyKey = 'tvly-test-key' } = {}): Promise<FakeWeb> {
  const pages = new Map<string, FakePage>();
  const raw = new Map<string, RawRoute>();
  const requests: FakeWebRequest[] = [];
  const state: Pick<FakeWeb, 'results' | 'providerStatus'> = {
    results: [],
    providerStatus: undefined,
  };
  let base = '';
  const resultUrl = (page: string): string =>
    /^https?:/.test(page) ? page : `${base}/pages/${page}`;

  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request: FakeWebRequest = {
        method: incoming.method ?? 'GET',
        url: incoming.url ?? '/',
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      const path = request.url.split('?')[0] ?? '/';
      const json = (status: number, body: unknown): void => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (path === '/tavily/search' && request.method === 'POST') {
        if (state.providerStatus !== undefined)
          return json(state.providerStatus, { detail: { error: 'scripted failure' } });
        if (request.headers.authorization !== `Bearer ${tavilyKey}`) {
          return json(401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
        }
        const body = JSON.parse(request.body) as {
          query: string;
          max_results?: number;
          include_raw_content?: boolean;
        };
        return json(200, {
          query: body.query,
          answer: null,
          images: [],
          results: state.results.slice(0, body.max_results ?? 5).map((result, index) => ({
            title: result.title,
            url: resultUrl(result.page),
            content: result.snippet,
            score: 0.9 - index * 0.1,
            raw_content:
              body.include_raw_content === true ? `${result.snippet} (raw content)` : null,
            ...(result.publishedDate === undefined ? {} : { published_date: result.publishedDate }),
          })),
          response_time: 0.42,
        });
      }
      if (path === '/searxng/search' && request.method === 'GET') {
        if (state.providerStatus !== undefined) {
          response.writeHead(state.providerStatus, { 'content-type': 'text/html' });
          return response.end('<h1>Forbidden</h1>');
        }
        const params = new URL(request.url, base).searchParams;
        if (params.get('format') !== 'json') return json(400, { error: 'format' });
        return json(200, {
          query: params.get('q'),
          number_of_results: state.results.length,
          results: state.results.map((result, index) => ({
            url: resultUrl(result.page),
            title: result.title,
            content: result.snippet,
            engine: 'duckduckgo',
            engines: ['duckduckgo'],
            score: 1 / (index + 1),
            category: params.get('categories') ?? 'general',
            ...(result.publishedDate === undefined ? {} : { publishedDate: result.publishedDate }),
          })),
          answers: [],
          suggestions: [],
          unresponsive_engines: [],
        });
      }
      const page = /^\/pages\/([\w-]+)$/.exec(path)?.[1];
      if (page !== undefined && pages.has(page)) {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return response.end(html(pages.get(page) as FakePage));
      }
      const route = /^\/raw\/([\w-]+)$/.exec(path)?.[1];
      const handler = route === undefined ? undefined : raw.get(route);
      if (handler) return handler(response, request);
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    tavilyUrl: `${base}/tavily`,
    searxngUrl: `${base}/searxng`,
    pageUrl: (name) => `${base}/pages/${name}`,
    pages,
    raw,
    requests,
    tavilyKey,
    get results() {
      return state.results;
    },
    set results(value) {
      state.results = value;
    },
    get providerStatus() {
      return state.providerStatus;
    },
    set providerStatus(value) {
      state.providerStatus = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
