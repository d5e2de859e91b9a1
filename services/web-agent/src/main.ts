// The web agent's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, the search
// provider, the page fetcher, the LLM client, Redis, the task store and the HTTP server are built
// here and nowhere else.
import { config, telemetry } from './instrumentation';
import { Redis } from 'ioredis';
import { RedisTaskStore, FLEET_REDIS_OPTIONS } from '@fleet/a2a/server';
import { serveAgent } from '@fleet/a2a/server/express';
import { ConfigError } from '@fleet/errors';
import { runMain } from '@fleet/http';
import { createLlmClient, OFFLINE_HINT, resolveUpstream } from '@fleet/llm';
import { createLogger } from '@fleet/telemetry';
import { createWebHandler } from './agent';
import { createWebAnswerer } from './answering';
import {
  NO_SEARCH_PROVIDER_HINT,
  searchProviderSettings,
  webAgentPublicUrl,
  type SearchProviderSettings,
} from './config';
import { createHostAllowlist, createPageFetcher } from './fetching';
import { createResearcher } from './research';
import { createSearchProvider } from './search';

async function main(): Promise<void> {
  const logger = createLogger({ service: 'web-agent', level: config.logLevel });
  let settings: SearchProviderSettings;
  try {
    settings = searchProviderSettings(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`web-agent: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const upstream = resolveUpstream({ apiKey: config.openaiApiKey, baseURL: config.openaiBaseUrl });
  const client = upstream.offline
    ? undefined
    : createLlmClient({ upstream, timeoutMs: config.llmTimeoutMs });
  const llm = client ? { client, model: config.llmModel } : undefined;

  const redis = new Redis(config.redisUrl, FLEET_REDIS_OPTIONS);
  // Without a listener ioredis reports connection errors as unhandled; /readyz shows the state.
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  const taskStore = new RedisTaskStore({ redis, keyPrefix: 'fleet:a2a:web-agent' });

  const provider = createSearchProvider({ settings, timeoutMs: config.searchTimeoutMs });
  const fetchPage = createPageFetcher({
    allowlist: createHostAllowlist(config.fetchAllowlist),
    maxBytes: config.fetchMaxBytes,
    timeoutMs: config.fetchTimeoutMs,
    maxRedirects: config.fetchMaxRedirects,
  });
  const researcher = createResearcher({
    provider,
    fetchPage,
    answerer: createWebAnswerer({ llm, logger }),
    maxResults: config.maxResults,
    fetchPages: config.fetchPages,
  });
  const url = webAgentPublicUrl(config);
  const handler = createWebHandler({
    researcher,
    store: taskStore,
    url,
    internalToken: true,
    logger,
  });

  const running = await serveAgent({
    serviceName: 'web-agent',
    handler,
    taskStore,
    redis,
    internalToken: config.internalToken,
    logger,
    port: config.port,
    host: config.host,
    production: config.nodeEnv === 'production',
    onShutdown: [() => telemetry.shutdown()],
  });
  logger.info(
    {
      url: running.url,
      card: url,
      searchProvider: settings.provider,
      upstream: upstream.offline ? 'offline' : upstream.baseURL,
      model: upstream.offline ? undefined : config.llmModel,
      fetchAllowlist: config.fetchAllowlist,
      tracing: telemetry.enabled,
    },
    'web-agent listening',
  );
  if (provider === undefined) logger.warn({}, NO_SEARCH_PROVIDER_HINT);
  if (upstream.offline) {
    logger.warn({}, `${OFFLINE_HINT} The web agent answers with the pages' own sentences, cited.`);
  }
}

runMain('web-agent', main);
