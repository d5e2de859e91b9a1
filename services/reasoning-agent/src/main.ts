// The reasoning agent's composition root (house style rule 3): configuration, telemetry, the LLM
// client, the tools, Redis, the task store and the HTTP server are built here and nowhere else.
import { config, telemetry } from './instrumentation';
import { Redis } from 'ioredis';
import { RedisTaskStore } from '@fleet/a2a/server';
import { runMain, startServer } from '@fleet/http';
import { createLlmClient, resolveUpstream } from '@fleet/llm';
import { createLogger } from '@fleet/telemetry';
import { createReasoningHandler, REASONING_OFFLINE_MESSAGE } from './agent';
import { createApp } from './app';
import { reasoningAgentPublicUrl } from './config';
import { createReasoningTools } from './tools';

async function main(): Promise<void> {
  const logger = createLogger({ service: 'reasoning-agent', level: config.logLevel });
  const upstream = resolveUpstream({ apiKey: config.openaiApiKey, baseURL: config.openaiBaseUrl });
  const client = upstream.offline
    ? undefined
    : createLlmClient({ upstream, timeoutMs: config.llmTimeoutMs });
  const llm = client ? { client, model: config.llmModel } : undefined;

  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2 });
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

  // The app asks whether shutdown has begun; the server that knows is started after the app.
  const lifecycle = { isShuttingDown: (): boolean => false };
  const app = createApp({
    handler,
    internalToken: config.internalToken,
    logger,
    readinessChecks: {
      redis: async () => {
        await redis.ping();
      },
    },
    isShuttingDown: () => lifecycle.isShuttingDown(),
    exposeStack: config.nodeEnv !== 'production',
  });
  const running = await startServer({
    app,
    port: config.port,
    host: config.host,
    logger,
    onShutdown: [
      () => handler.close(),
      () => taskStore.close(),
      async () => {
        await redis.quit().catch(() => redis.disconnect());
      },
      () => telemetry.shutdown(),
    ],
  });
  lifecycle.isShuttingDown = () => running.isShuttingDown();
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
