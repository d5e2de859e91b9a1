// The planner's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, Redis, the task
// store, the LLM client and the HTTP server are built here and nowhere else.
import { config, telemetry } from './instrumentation';
import { Redis } from 'ioredis';
import { RedisTaskStore, FLEET_REDIS_OPTIONS } from '@fleet/a2a/server';
import { serveAgent } from '@fleet/a2a/server/express';
import { runMain } from '@fleet/http';
import { createLlmClient, OFFLINE_HINT, resolveUpstream } from '@fleet/llm';
import { createLogger } from '@fleet/telemetry';
import { createPlannerHandler } from './agent';
import { plannerPublicUrl } from './config';
import { createPlanner } from './planning';

async function main(): Promise<void> {
  const logger = createLogger({ service: 'planner', level: config.logLevel });
  const upstream = resolveUpstream({ apiKey: config.openaiApiKey, baseURL: config.openaiBaseUrl });
  const client = upstream.offline
    ? undefined
    : createLlmClient({ upstream, timeoutMs: config.llmTimeoutMs });

  const redis = new Redis(config.redisUrl, FLEET_REDIS_OPTIONS);
  // Without a listener ioredis reports connection errors as unhandled; /readyz shows the state.
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  const store = new RedisTaskStore({ redis, keyPrefix: 'fleet:a2a:planner' });

  const planner = createPlanner({
    llm: client ? { client, model: config.llmModel } : undefined,
    logger,
  });
  const url = plannerPublicUrl(config);
  const handler = createPlannerHandler({ planner, store, url, internalToken: true, logger });

  const running = await serveAgent({
    serviceName: 'planner',
    handler,
    taskStore: store,
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
      tracing: telemetry.enabled,
    },
    'planner listening',
  );
  if (upstream.offline) logger.warn({}, `${OFFLINE_HINT} The planner plans heuristically.`);
}

runMain('planner', main);
