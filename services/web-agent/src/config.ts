import { z } from 'zod';
import {
  a2aServerEnv,
  byteSizeSchema,
  envVar,
  httpUrlSchema,
  listSchema,
  llmEnv,
  loadConfig,
  positiveIntSchema,
  redisEnv,
  runtimeEnv,
  telemetryEnv,
  type ConfigOf,
  type Environment,
  type LoadConfigOptions,
} from '@fleet/config';
import { ConfigError } from '@fleet/errors';

/** The search providers the web agent can use. */
export const SEARCH_PROVIDERS = ['tavily', 'searxng'] as const;
/** One of {@link SEARCH_PROVIDERS}. */
export type SearchProviderName = (typeof SEARCH_PROVIDERS)[number];

/** Tavily's API, when TAVILY_BASE_URL is unset. */
export const DEFAULT_TAVILY_BASE_URL = 'https://api.tavily.com';

/**
 * What a task that needs search says when no provider is configured: how to configure one.
 */
export const NO_SEARCH_PROVIDER_HINT =
  'No web search provider is configured. Set WEB_SEARCH_PROVIDER=tavily and TAVILY_API_KEY (a key from https://app.tavily.com), or WEB_SEARCH_PROVIDER=searxng and SEARXNG_URL (a SearXNG instance with the json format enabled in settings.yml), then restart the web agent.';

/** Every variable the web agent reads (docs/architecture.md §1, §10, §11). */
export const configSpec = {
  ...a2aServerEnv({
    prefix: 'WEB_AGENT',
    label: 'the web agent',
    defaultPort: 8084,
    deprecatedPublicUrlNames: ['WEB_AGENT_URL'],
  }),
  searchProvider: envVar({
    name: 'WEB_SEARCH_PROVIDER',
    schema: z
      .enum(SEARCH_PROVIDERS, { error: `expected one of ${SEARCH_PROVIDERS.join(', ')}` })
      .optional(),
    description:
      'Which search API the web agent uses: tavily (needs TAVILY_API_KEY) or searxng (needs SEARXNG_URL). Unset: tavily when TAVILY_API_KEY is set, else searxng when SEARXNG_URL is set, else none (search tasks fail with a message saying how to configure one; reading a given URL still works).',
    defaultText: 'inferred from TAVILY_API_KEY / SEARXNG_URL; none when both are unset',
  }),
  tavilyApiKey: envVar({
    name: 'TAVILY_API_KEY',
    schema: z.string().min(1).optional(),
    description: 'Tavily API key, sent as `Authorization: Bearer <key>`.',
    defaultText: 'unset',
    example: 'tvly-...',
    secret: true,
  }),
  tavilyBaseUrl: envVar({
    name: 'TAVILY_BASE_URL',
    schema: httpUrlSchema.default(DEFAULT_TAVILY_BASE_URL),
    description:
      "Base URL of the Tavily API (POST <url>/search). The operator's choice, so it is called without the page-fetch address guard.",
  }),
  searxngUrl: envVar({
    name: 'SEARXNG_URL',
    schema: httpUrlSchema.optional(),
    description:
      "Base URL of a SearXNG instance (GET <url>/search?format=json); its settings.yml must enable the json format. The operator's choice, so it may be on a private network: it is called without the page-fetch address guard.",
    defaultText: 'unset',
    example: 'http://searxng:8080',
  }),
  searchTimeoutMs: envVar({
    name: 'WEB_SEARCH_TIMEOUT_MS',
    schema: positiveIntSchema.default(15_000),
    description: 'How long one call to the search provider may take.',
  }),
  maxResults: envVar({
    name: 'WEB_SEARCH_MAX_RESULTS',
    schema: positiveIntSchema.max(20, 'expected at most 20').default(5),
    description:
      'Search results per question in the basic and news modes (deep mode asks for twice as many, up to 20).',
  }),
  fetchPages: envVar({
    name: 'WEB_FETCH_PAGES',
    schema: z.coerce
      .number({ error: 'expected a number' })
      .int('expected a whole number')
      .min(0, 'expected 0 or more')
      .max(10, 'expected at most 10')
      .default(3),
    description:
      'How many of the top results the agent fetches and reads in the basic and news modes (deep mode reads twice as many, up to 10). 0 answers from the snippets only.',
  }),
  fetchMaxBytes: envVar({
    name: 'WEB_FETCH_MAX_BYTES',
    schema: byteSizeSchema.prefault('2mb'),
    description:
      'Largest page body the agent reads (after decompression; bytes, or 512kb, 2mb…); a larger page is refused.',
  }),
  fetchTimeoutMs: envVar({
    name: 'WEB_FETCH_TIMEOUT_MS',
    schema: positiveIntSchema.default(10_000),
    description: 'How long fetching one page may take, redirects included.',
  }),
  fetchMaxRedirects: envVar({
    name: 'WEB_FETCH_MAX_REDIRECTS',
    schema: z.coerce
      .number({ error: 'expected a number' })
      .int('expected a whole number')
      .min(0, 'expected 0 or more')
      .max(20, 'expected at most 20')
      .default(5),
    description: 'How many redirects one page fetch follows; each hop is checked again.',
  }),
  fetchAllowlist: envVar({
    name: 'WEB_FETCH_ALLOWLIST',
    schema: listSchema.default([]),
    description:
      'Comma-separated host names (or IP literals) the agent may fetch even when they resolve to a private, loopback, link-local or metadata address; `*.example.internal` allows the subdomains. Everything else on those addresses is refused.',
    defaultText: 'empty: every such address is refused',
    example: 'intranet.example.com,*.docs.internal',
  }),
  readWorkers: envVar({
    name: 'WEB_READ_WORKERS',
    schema: positiveIntSchema.max(64, 'expected at most 64').default(2),
    description:
      "Worker threads that extract fetched pages' readable text (Readability over linkedom) beside the agent's event loop, which keeps answering other tasks meanwhile. Each reads one page at a time.",
  }),
  readTimeoutMs: envVar({
    name: 'WEB_READ_TIMEOUT_MS',
    schema: positiveIntSchema.default(10_000),
    description:
      'How long extracting one page may take; past it its worker thread is terminated and replaced, and the page counts as unreadable (its error names this variable).',
  }),
  readMemoryMb: envVar({
    name: 'WEB_READ_MEMORY_MB',
    schema: positiveIntSchema.min(64, 'expected at least 64').default(256),
    description:
      "Heap of each page-reading worker thread, in MiB (V8's old generation). A page that needs more ends only its worker (replaced) and counts as unreadable.",
  }),
  readQueueLength: envVar({
    name: 'WEB_READ_QUEUE_LENGTH',
    schema: positiveIntSchema.default(32),
    description:
      'Pages waiting for a reading worker, every tenant together; one tenant may fill at most half. Past it a page is refused at once (a task that only reads pages FAILS with `SERVICE_UNAVAILABLE` and `{ retryable: true }`; a search keeps the result snippets).',
  }),
  readTenantConcurrency: envVar({
    name: 'WEB_READ_TENANT_CONCURRENCY',
    schema: positiveIntSchema.default(1),
    description:
      "Pages of one tenant read at once; the tenant's others wait their turn, served round-robin with the other tenants', so one tenant's heavy pages never hold up another's.",
  }),
  readMaxNestingDepth: envVar({
    name: 'WEB_READ_MAX_NESTING_DEPTH',
    schema: positiveIntSchema.max(1000, 'expected at most 1000').default(150),
    description:
      "How deep a page may nest its elements (estimated before any DOM is built; `li`, `td`, `p` and other elements whose end tag is optional do not count). A deeper page is not read (Readability's time grows with the cube of the depth: 800 nested `<div>`s took 6.5 s, 2,000 about a minute) and counts as unreadable.",
  }),
  ...llmEnv,
  ...redisEnv,
  ...telemetryEnv,
  ...runtimeEnv,
} as const;

/** The web agent's typed configuration. */
export type WebAgentConfig = ConfigOf<typeof configSpec>;

/** The search provider in effect, with what it needs. */
export type SearchProviderSettings =
  | { provider: 'tavily'; apiKey: string; baseUrl: string }
  | { provider: 'searxng'; baseUrl: string }
  | { provider: 'none' };

/**
 * The search provider in effect: WEB_SEARCH_PROVIDER, or inferred (TAVILY_API_KEY, then
 * SEARXNG_URL), or `none`.
 *
 * @throws ConfigError when the chosen provider lacks its key or URL.
 * @example
 * searchProviderSettings({ searchProvider: 'searxng', searxngUrl: 'http://searxng:8080', tavilyBaseUrl }); // { provider: 'searxng', baseUrl: 'http://searxng:8080' }
 */
export function searchProviderSettings(
  config: Pick<WebAgentConfig, 'searchProvider' | 'tavilyApiKey' | 'tavilyBaseUrl' | 'searxngUrl'>,
): SearchProviderSettings {
  const provider =
    config.searchProvider ??
    (config.tavilyApiKey !== undefined
      ? 'tavily'
      : config.searxngUrl !== undefined
        ? 'searxng'
        : undefined);
  switch (provider) {
    case undefined:
      return { provider: 'none' };
    case 'tavily':
      if (config.tavilyApiKey === undefined) {
        throw new ConfigError(
          'WEB_SEARCH_PROVIDER is tavily but TAVILY_API_KEY is not set: set it to your Tavily API key (https://app.tavily.com).',
        );
      }
      return { provider, apiKey: config.tavilyApiKey, baseUrl: config.tavilyBaseUrl };
    case 'searxng':
      if (config.searxngUrl === undefined) {
        throw new ConfigError(
          'WEB_SEARCH_PROVIDER is searxng but SEARXNG_URL is not set: set it to the base URL of a SearXNG instance with the json format enabled.',
        );
      }
      return { provider, baseUrl: config.searxngUrl };
  }
}

/** Loads the web agent's configuration; the only place it reads the environment (CONTRIBUTING.md convention 15). */
export function loadWebAgentConfig(
  environment: Environment = process.env,
  options: LoadConfigOptions = {},
): WebAgentConfig {
  return loadConfig(configSpec, environment, options);
}
