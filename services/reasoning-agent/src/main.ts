// The reasoning agent's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, the LLM
// client, the tools, Redis, the task store and the HTTP server are built here and nowhere else.
import { config, telemetry } from './instrumentation';
import { Redis } from 'ioredis';
import { RedisTaskStore, FLEET_REDIS_OPTIONS } from '@fleet/a2a/server';
import { serveAgent } from '@fleet/a2a/server/express';
import { runMain } from '@fleet/http';
import { createLlmClient, resolveUpstream } from '@fleet/llm';
import { createLogger } from '@fleet/telemetry';
import { createReasoningHandler, REASONING_OFFLINE_MESSAGE } from './agent';
import { reasoningAgentPublicUrl } from './config';
import { createReasoningTools } from './tools';

async function main(): Promise<void> {
  const logger = createLogger({ service: 'reasoning-agent', level: config.logLevel });
  const upstream = resolveUpstream({ apiKey: config.openaiApiKey, baseURL: config.openaiBaseUrl });
  const client = upstream.offline
    ? undefined
    : createLlmClient({ upstream, timeoutMs: config.llmTimeoutMs });
  const llm = client ? { client, model: config.llmModel } : undefined;

  const redis = new Redis(config.redisUrl, FLEET_REDIS_OPTIONS);
  // Without a listener ioredis reports connection errors as unhandled; /readyz shows the state.
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  const taskStore = new RedisTaskStore({ redis, keyPrefix: 'fleet:a2a:reasoning-agent' });

  const tools = createReasoningTools({ defaultTimeZone: config.defaultTimeZone });
  const url = reasoningAgentPublicUrl(config);
  const handler = createReasoningHandler({
    llm,
    tools,
    maxIterations: config.maxIterations,
    maxTokens: config.maxTokens,
    store: taskStore,
    url,
    internalToken: true,
    logger,
  });

  const running = await serveAgent({
    serviceName: 'reasoning-agent',
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
      upstream: upstream.offline ? 'offline' : upstream.baseURL,
      model: upstream.offline ? undefined : config.llmModel,
      tools: tools.map((tool) => tool.name),
      maxIterations: config.maxIterations,
      maxTokens: config.maxTokens,
      tracing: telemetry.enabled,
    },
    'reasoning-agent listening',
  );
  if (upstream.offline) logger.warn({}, REASONING_OFFLINE_MESSAGE);
}

runMain('reasoning-agent', main);
