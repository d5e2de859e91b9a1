import type { AgentAvailability, AgentCard } from '@fleet/a2a';
import { buildAgentCard } from '@fleet/a2a/server';
import { withAvailability } from '@fleet/agent-kit';

/** The web agent's version, as its Agent Card states it. */
export const WEB_AGENT_VERSION = '0.1.0';

/** The skills on the web agent's card. `web-search` is the default. */
export const WEB_SKILLS = {
  search: 'web-search',
  news: 'news',
  deep: 'deep-research',
  read: 'read-page',
} as const;
/** One of the skill ids on the card. */
export type WebSkill = (typeof WEB_SKILLS)[keyof typeof WEB_SKILLS];

/** Options for {@link buildWebCard}. */
export interface BuildWebCardOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8084`. */
  url: string;
  /** Declares the fleet's bearer scheme; set when `/a2a` needs FLEET_INTERNAL_TOKEN. @default true */
  internalToken?: boolean;
  /**
   * What the configured search provider allows (`webAvailability`), declared with the card's
   * availability extension. Absent: the card does not say.
   */
  availability?: AgentAvailability | undefined;
}

const RESULT_SHAPE =
  'Answers with the artifact "result": a text part (the answer with [n] citations) and a data part { mode, query, provider, sources: [{ title, url, snippet, publishedDate?, fetched }], results, pages: [{ url, status, finalUrl?, error? }], answeredBy }; sources[n - 1] is [n].';

const INPUT_SHAPE =
  'Send a text part with the question and the fleet node input data part { fleet: { sessionId, nodeId, tenant, dependencyOutputs, … } }.';

/**
 * The web agent's Agent Card: name `web-agent`, streaming, skills `web-search` (the default),
 * `news`, `deep-research` and `read-page`, with tags and examples the planner matches on, and the
 * internal-token security scheme, and the availability extension when `availability` is given.
 *
 * @example
 * const card = buildWebCard({ url: 'http://127.0.0.1:8084' });
 */
export function buildWebCard({
  url,
  internalToken = true,
  availability,
}: BuildWebCardOptions): AgentCard {
  const card = buildAgentCard({
    name: 'web-agent',
    description:
      'Searches the public web and reads web pages, answering with cited sources: facts, current events and news, products, releases, prices, people and companies that are not in the internal documents. Search through a configurable provider (Tavily or SearXNG), follow-up reads of the top pages with readable-text extraction, answers with [n] citations and their URLs. Never reaches private or internal network addresses.',
    version: WEB_AGENT_VERSION,
    url,
    streaming: true,
    internalToken,
    skills: [
      {
        id: WEB_SKILLS.search,
        name: 'Web search',
        description: `Searches the web, reads the top results and answers the question with [n] citations to the pages. ${INPUT_SHAPE} ${RESULT_SHAPE}`,
        tags: ['web', 'search', 'internet', 'online', 'google', 'public', 'website', 'sources'],
        examples: [
          'search the web for the latest Node.js LTS release',
          'what does the internet say about the James Webb telescope findings?',
          'find the current price of the Raspberry Pi 5 online',
          'look up the population of Lisbon',
        ],
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['text/plain', 'application/json'],
      },
      {
        id: WEB_SKILLS.news,
        name: 'News search',
        description: `Searches recent news articles (the provider's news topic or category) and answers with dates and [n] citations. ${INPUT_SHAPE} ${RESULT_SHAPE}`,
        tags: ['news', 'latest', 'current events', 'headlines', 'today', 'recent', 'announcement'],
        examples: [
          'what is the latest news about the EU AI Act?',
          'find recent news on our competitor Acme Corp',
          "today's headlines about interest rates",
        ],
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['text/plain', 'application/json'],
      },
      {
        id: WEB_SKILLS.deep,
        name: 'Deep web research',
        description: `In-depth research: an advanced search with twice the results and twice the pages read, for comparisons and thorough overviews, answered with [n] citations. ${INPUT_SHAPE} ${RESULT_SHAPE}`,
        tags: ['research', 'in-depth', 'deep', 'compare', 'overview', 'investigate', 'market'],
        examples: [
          'research the differences between PostgreSQL and MySQL replication in depth',
          'compare the pricing of the major cloud GPU providers',
          'give me a thorough overview of WebAssembly component model adoption',
        ],
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['text/plain', 'application/json'],
      },
      {
        id: WEB_SKILLS.read,
        name: 'Read a web page',
        description: `Fetches the http(s) URLs named in the task (up to 5), extracts their readable text and answers or summarises from them with [n] citations. Private, loopback, link-local and metadata addresses are refused. ${INPUT_SHAPE} ${RESULT_SHAPE}`,
        tags: ['url', 'page', 'fetch', 'link', 'read', 'summarise', 'article'],
        examples: [
          'summarise https://example.com/blog/post',
          'what does the page https://nodejs.org/en/about/previous-releases say about Node 22?',
        ],
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['text/plain', 'application/json'],
      },
    ],
  });
  return availability === undefined ? card : withAvailability(card, availability);
}
