// The web agent's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, the search
// provider, the page fetcher, the LLM client, Redis, the task store and the HTTP server are built
// here and nowhere else.
import { config, telemetry } from './instrumentation';
import { agentModel, describeUpstream, startAgentService } from '@fleet/agent-kit';
import { ConfigError } from '@fleet/errors';
import { runMain } from '@fleet/http';
import { OFFLINE_HINT } from '@fleet/llm';
import { createLogger } from '@fleet/telemetry';
import { createWebHandler, webAvailability } from './agent';
import { createWebAnswerer } from './answering';
import { searchProviderSettings, type SearchProviderSettings } from './config';
import { createHostAllowlist, createPageFetcher, createPageReader } from './fetching';
import { createResearcher } from './research';
import { createSearchProvider } from './search';

/** The search provider's settings; a half-configured provider stops the boot saying what is missing. */
function providerSettings(): SearchProviderSettings {
  try {
    return searchProviderSettings(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`web-agent: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  const logger = createLogger({ service: 'web-agent', level: config.logLevel });
  const settings = providerSettings();
  const model = agentModel(config);
  const provider = createSearchProvider({ settings, timeoutMs: config.searchTimeoutMs });
  const fetchPage = createPageFetcher({
    allowlist: createHostAllowlist(config.fetchAllowlist),
    maxBytes: config.fetchMaxBytes,
    timeoutMs: config.fetchTimeoutMs,
    maxRedirects: config.fetchMaxRedirects,
  });
  // Pages' readable text is extracted on worker threads, under time and memory budgets, served
  // fairly between tenants: the event loop stays free for other tasks.
  const pageReader = createPageReader({
    workers: config.readWorkers,
    timeoutMs: config.readTimeoutMs,
    maxMemoryMb: config.readMemoryMb,
    maxQueued: config.readQueueLength,
    maxRunningPerTenant: config.readTenantConcurrency,
    maxNestingDepth: config.readMaxNestingDepth,
    logger,
  });
  const researcher = createResearcher({
    provider,
    fetchPage,
    pageReader,
    answerer: createWebAnswerer({ llm: model.llm, logger }),
    maxResults: config.maxResults,
    fetchPages: config.fetchPages,
  });
  // Said on the card and by /readyz; the kit logs it once when it is not `ready`.
  const availability = webAvailability(settings);
  await startAgentService({
    serviceName: 'web-agent',
    config,
    logger,
    telemetry,
    availability,
    createHandler: ({ store, url }) =>
      createWebHandler({ researcher, store, url, internalToken: true, logger, availability }),
    onShutdown: [() => pageReader.close()],
    describe: {
      searchProvider: settings.provider,
      ...describeUpstream(model, config.llmModel),
      fetchAllowlist: config.fetchAllowlist,
      readWorkers: config.readWorkers,
    },
  });
  if (model.upstream.offline) {
    logger.warn({}, `${OFFLINE_HINT} The web agent answers with the pages' own sentences, cited.`);
  }
}

runMain('web-agent', main);
