import { describe, expect, it } from '@jest/globals';
import { agentCardSchema } from '@fleet/a2a';
import { AVAILABILITY_EXTENSION_URI } from '@fleet/agent-kit';
import { NO_SEARCH_PROVIDER_HINT } from '../config';
import { buildWebCard } from './web-card';
import { webAvailability } from './web-availability';

/** The availability the card's extension declares. */
function declared(provider: 'tavily' | 'searxng' | 'none'): unknown {
  const card = agentCardSchema.parse(
    buildWebCard({ url: 'http://127.0.0.1:8084', availability: webAvailability({ provider }) }),
  );
  return card.capabilities.extensions?.find(
    (extension) => extension.uri === AVAILABILITY_EXTENSION_URI,
  )?.params;
}

describe('webAvailability', () => {
  it('is degraded without a search provider: the search skills are unavailable, read-page is not', () => {
    const params = declared('none') as { reason: string; unavailableSkills: string[] };
    expect(params).toMatchObject({
      state: 'degraded',
      unavailableSkills: ['web-search', 'news', 'deep-research'],
    });
    expect(params.reason).toContain(NO_SEARCH_PROVIDER_HINT);
    expect(params.unavailableSkills).not.toContain('read-page');
  });

  it('is ready with Tavily or SearXNG', () => {
    expect(declared('tavily')).toEqual({ state: 'ready' });
    expect(declared('searxng')).toEqual({ state: 'ready' });
  });
});
