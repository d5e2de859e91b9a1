import type { AgentAvailability } from '@fleet/a2a';
import { NO_SEARCH_PROVIDER_HINT, type SearchProviderSettings } from '../config';
import { WEB_SKILLS } from './web-card';

/**
 * Whether the web agent can work with the search provider it has (its card's availability
 * extension and `/readyz`, docs/agents.md): without one it is `degraded` — `web-search`, `news`
 * and `deep-research` need a search, reading the pages a task names (`read-page`) still works —
 * with {@link NO_SEARCH_PROVIDER_HINT} as the reason; with one it is `ready`.
 *
 * @example
 * webAvailability({ provider: 'none' }); // { state: 'degraded', unavailableSkills: ['web-search', 'news', 'deep-research'], … }
 */
export function webAvailability(
  settings: Pick<SearchProviderSettings, 'provider'>,
): AgentAvailability {
  if (settings.provider !== 'none') return { state: 'ready' };
  return {
    state: 'degraded',
    reason: `${NO_SEARCH_PROVIDER_HINT} Reading the pages a task names works without one.`,
    unavailableSkills: [WEB_SKILLS.search, WEB_SKILLS.news, WEB_SKILLS.deep],
  };
}
