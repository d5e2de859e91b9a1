import { z } from 'zod';
import { callProvider } from './call-provider';
import type { SearchProvider, SearchResult } from './search-provider';

/** Options for {@link createSearxngProvider}. */
export interface CreateSearxngProviderOptions {
  /** The instance's base URL, e.g. `http://searxng:8080`. */
  baseUrl: string;
  /** @default 15000 */
  timeoutMs?: number;
}

// SearXNG's JSON format, minimal and tolerant (CONTRIBUTING.md convention 9).
const searxngResponseSchema = z.object({
  query: z.string().nullish(),
  results: z
    .array(
      z.object({
        url: z.string().nullish(),
        title: z.string().nullish(),
        content: z.string().nullish(),
        publishedDate: z.string().nullish(),
        engine: z.string().nullish(),
        score: z.number().nullish(),
      }),
    )
    .nullish(),
});

/**
 * The SearXNG provider: `GET {baseUrl}/search?q=…&format=json` with `categories=news` in news mode
 * and `categories=general` otherwise; deep mode also reads the second result page. SearXNG returns
 * a page of results whatever is asked; they are cut to `maxResults`. A 403 means the instance has
 * not enabled the json format.
 *
 * @example
 * const provider = createSearxngProvider({ baseUrl: config.searxngUrl });
 */
export function createSearxngProvider({
  baseUrl,
  timeoutMs = 15_000,
}: CreateSearxngProviderOptions): SearchProvider {
  const base = baseUrl.replace(/\/+$/, '');
  async function page(
    query: string,
    options: { mode: string; pageno: number; signal?: AbortSignal | undefined },
  ) {
    const params = new URLSearchParams({
      q: query,
      format: 'json',
      categories: options.mode === 'news' ? 'news' : 'general',
      pageno: String(options.pageno),
    });
    return callProvider({
      provider: 'SearXNG',
      url: `${base}/search?${params.toString()}`,
      request: { method: 'GET', headers: { accept: 'application/json' } },
      schema: searxngResponseSchema,
      timeoutMs,
      signal: options.signal,
      describeStatus: (status) =>
        status === 403
          ? 'SearXNG refused format=json (HTTP 403): add json to search.formats in its settings.yml.'
          : status === 429
            ? 'SearXNG is rate limiting the web agent (HTTP 429): exempt it in the limiter settings.'
            : undefined,
    });
  }
  return {
    name: 'searxng',
    async search({ query, mode, maxResults, signal }) {
      const first = await page(query, { mode, pageno: 1, signal });
      const entries = [...(first.results ?? [])];
      if (mode === 'deep' && entries.length < maxResults) {
        const second = await page(query, { mode, pageno: 2, signal });
        entries.push(...(second.results ?? []));
      }
      const seen = new Set<string>();
      const results: SearchResult[] = [];
      for (const entry of entries) {
        if (!entry.url || seen.has(entry.url)) continue;
        seen.add(entry.url);
        results.push({
          title: entry.title?.trim() || entry.url,
          url: entry.url,
          snippet: entry.content?.trim() ?? '',
          ...(entry.publishedDate ? { publishedDate: entry.publishedDate } : {}),
          ...(typeof entry.score === 'number' ? { score: entry.score } : {}),
          ...(entry.engine ? { engine: entry.engine } : {}),
        });
        if (results.length >= maxResults) break;
      }
      return { provider: 'searxng', query: first.query ?? query, results };
    },
  };
}
