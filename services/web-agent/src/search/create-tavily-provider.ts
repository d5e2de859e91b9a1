import { z } from 'zod';
import { callProvider } from './call-provider';
import type { SearchProvider, SearchResult } from './search-provider';

/** Options for {@link createTavilyProvider}. */
export interface CreateTavilyProviderOptions {
  apiKey: string;
  /** @default 'https://api.tavily.com' */
  baseUrl?: string;
  /** @default 15000 */
  timeoutMs?: number;
}

// Tavily's response, minimal and tolerant (CONTRIBUTING.md convention 9).
const tavilyResponseSchema = z.object({
  query: z.string().nullish(),
  results: z
    .array(
      z.object({
        title: z.string().nullish(),
        url: z.string(),
        content: z.string().nullish(),
        score: z.number().nullish(),
        raw_content: z.string().nullish(),
        published_date: z.string().nullish(),
      }),
    )
    .nullish(),
});

/**
 * The Tavily search provider: `POST {baseUrl}/search` with `Authorization: Bearer <key>` and
 * `{ query, search_depth, topic, max_results, include_raw_content }`. Modes: `basic` is
 * `search_depth: basic, topic: general`; `news` is `topic: news`; `deep` is `search_depth:
 * advanced` with the pages' raw content.
 *
 * @example
 * const provider = createTavilyProvider({ apiKey: config.tavilyApiKey });
 * const { results } = await provider.search({ query: 'node 22 release', mode: 'basic', maxResults: 5 });
 */
export function createTavilyProvider({
  apiKey,
  baseUrl = 'https://api.tavily.com',
  timeoutMs = 15_000,
}: CreateTavilyProviderOptions): SearchProvider {
  return {
    name: 'tavily',
    async search({ query, mode, maxResults, signal }) {
      const body = await callProvider({
        provider: 'Tavily',
        url: `${baseUrl.replace(/\/+$/, '')}/search`,
        request: {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
          body: JSON.stringify({
            query,
            search_depth: mode === 'deep' ? 'advanced' : 'basic',
            topic: mode === 'news' ? 'news' : 'general',
            max_results: maxResults,
            include_raw_content: mode === 'deep',
            include_answer: false,
          }),
        },
        schema: tavilyResponseSchema,
        timeoutMs,
        signal,
        describeStatus: (status) =>
          status === 401 || status === 403
            ? `Tavily refused the API key (HTTP ${status}): check TAVILY_API_KEY.`
            : status === 429 || status === 432 || status === 433
              ? `Tavily's rate or usage limit was reached (HTTP ${status}).`
              : undefined,
      });
      const results: SearchResult[] = (body.results ?? []).slice(0, maxResults).map((entry) => ({
        title: entry.title?.trim() || entry.url,
        url: entry.url,
        snippet: entry.content?.trim() ?? '',
        ...(entry.published_date ? { publishedDate: entry.published_date } : {}),
        ...(typeof entry.score === 'number' ? { score: entry.score } : {}),
        ...(entry.raw_content ? { rawContent: entry.raw_content } : {}),
      }));
      return { provider: 'tavily', query: body.query ?? query, results };
    },
  };
}
