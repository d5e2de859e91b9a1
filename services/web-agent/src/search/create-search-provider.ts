import type { SearchProviderSettings } from '../config';
import { createSearxngProvider } from './create-searxng-provider';
import { createTavilyProvider } from './create-tavily-provider';
import type { SearchProvider } from './search-provider';

/**
 * The configured search provider, or `undefined` when none is configured (search tasks then fail
 * with `NO_SEARCH_PROVIDER_HINT`).
 *
 * @example
 * const provider = createSearchProvider({ settings: searchProviderSettings(config), timeoutMs: config.searchTimeoutMs });
 */
export function createSearchProvider({
  settings,
  timeoutMs,
}: {
  settings: SearchProviderSettings;
  timeoutMs?: number;
}): SearchProvider | undefined {
  const timeout = timeoutMs === undefined ? {} : { timeoutMs };
  switch (settings.provider) {
    case 'tavily':
      return createTavilyProvider({
        apiKey: settings.apiKey,
        baseUrl: settings.baseUrl,
        ...timeout,
      });
    case 'searxng':
      return createSearxngProvider({ baseUrl: settings.baseUrl, ...timeout });
    case 'none':
      return undefined;
  }
}
