/** Web search through pluggable providers (Tavily, SearXNG), chosen by configuration. */
export { createSearchProvider } from './create-search-provider';
export { createSearxngProvider } from './create-searxng-provider';
export type { CreateSearxngProviderOptions } from './create-searxng-provider';
export { createTavilyProvider } from './create-tavily-provider';
export type { CreateTavilyProviderOptions } from './create-tavily-provider';
export { SEARCH_MODES, searchResultSchema } from './search-provider';
export type {
  SearchMode,
  SearchProvider,
  SearchRequest,
  SearchResponse,
  SearchResult,
} from './search-provider';
