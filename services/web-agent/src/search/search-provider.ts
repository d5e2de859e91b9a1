import { z } from 'zod';

/** How a question is searched: `basic` (general web), `news` (recent news), `deep` (more results, more pages read). */
export const SEARCH_MODES = ['basic', 'news', 'deep'] as const;
/** One of {@link SEARCH_MODES}. */
export type SearchMode = (typeof SEARCH_MODES)[number];

/** One search request to a provider. */
export interface SearchRequest {
  query: string;
  mode: SearchMode;
  /** Results wanted (providers that return more are cut to this). */
  maxResults: number;
  signal?: AbortSignal | undefined;
}

/** One result, whatever the provider. */
export const searchResultSchema = z.object({
  title: z.string(),
  url: z.string(),
  /** The provider's snippet of the page. */
  snippet: z.string(),
  /** When the page was published, as the provider says it (news). */
  publishedDate: z.string().optional(),
  /** The provider's relevance score, when it gives one. */
  score: z.number().optional(),
  /** Which engine found it (SearXNG). */
  engine: z.string().optional(),
});
export type SearchResult = z.infer<typeof searchResultSchema> & {
  /** The page's text as the provider extracted it (Tavily `include_raw_content`), not passed on in results. */
  rawContent?: string;
};

/** What a provider answered. */
export interface SearchResponse {
  provider: string;
  query: string;
  results: SearchResult[];
}

/** A search API behind the web agent (Tavily, SearXNG, …), chosen by configuration. */
export interface SearchProvider {
  /** `tavily`, `searxng`. */
  readonly name: string;
  search(request: SearchRequest): Promise<SearchResponse>;
}
