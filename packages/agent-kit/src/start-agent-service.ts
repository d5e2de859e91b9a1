import type { Router } from 'express';
import { publicUrlOf } from '@fleet/config';
import {
  createFleetRedis,
  RedisTaskStore,
  type FleetRedisConfig,
  type A2AHandler,
  type TaskStore,
} from '@fleet/a2a/server';
import { serveAgent } from '@fleet/a2a/server/express';
import type { AgentAvailability } from '@fleet/a2a';
import type { ReadinessCheck, RunningServer, ShutdownHook } from '@fleet/http';
import type { Logger } from '@fleet/telemetry';
import { availabilityReadiness, describeAvailability } from './availability';

/** The variables {@link startAgentService} reads: `a2aServerEnv`, `redisEnv`, `runtimeEnv`. */
export interface AgentServiceConfig extends FleetRedisConfig {
  port: number;
  host: string;
  publicUrl?: string | undefined;
  internalToken: string;
  nodeEnv: 'development' | 'production' | 'test';
  /** Replicas an agent's claim on a side effect waits for (`REDIS_CLAIM_REPLICAS`). @default 0 */
  redisClaimReplicas?: number | undefined;
  /** How long it waits for them (`REDIS_CLAIM_WAIT_MS`). @default 1000 */
  redisClaimWaitMs?: number | undefined;
}

/** What the agent's handler is built from. */
export interface AgentHandlerParts {
  /** The Redis task store (`fleet:a2a:<service>`), so any replica answers GetTask. */
  store: TaskStore;
  /** The base URL the card announces (`<PREFIX>_PUBLIC_URL`, or where it listens). */
  url: string;
}

/** Options for {@link startAgentService}. */
export interface StartAgentServiceOptions {
  /** `web-agent`: names the logs, metrics, spans and the task store's keys. */
  serviceName: string;
  config: AgentServiceConfig;
  logger: Logger;
  /** Started by the service's `instrumentation.ts`; shut down last. */
  telemetry: { enabled: boolean; shutdown(): Promise<void> };
  /** Builds the agent's A2A handler (its card, its agent) on the task store. */
  createHandler: (parts: AgentHandlerParts) => A2AHandler;
  /** Largest JSON-RPC body in bytes. @default 1048576 */
  bodyLimit?: number;
  /**
   * Plain HTTP routes for the fleet's services, at `/internal/…` behind the internal token (as
   * `/a2a`): `createAgentApp`'s `internalRoutes`.
   */
  internalRoutes?: Router;
  /** `/readyz` checks besides Redis (e.g. the database). */
  readinessChecks?: Record<string, ReadinessCheck>;
  /**
   * Whether the agent can do its work with the configuration it has (docs/agents.md, "Saying
   * whether it can work"): reported by `/readyz` as the check `availability` (degraded, never
   * failing, unless `ready`) and logged once at start. Put the same value on the card with
   * `withAvailability`. Absent: the agent does not say (counts as ready).
   */
  availability?: AgentAvailability | undefined;
  /** Run on shutdown after the handler, the task store and Redis, before telemetry. */
  onShutdown?: ShutdownHook[];
  /** Extra fields for the "listening" log line (model, limits, …). */
  describe?: Record<string, unknown>;
}

/** A started agent service. */
export interface RunningAgentService {
  server: RunningServer;
  handler: A2AHandler;
  /** The base URL the card announces. */
  url: string;
}

/**
 * Starts an agent service the way every fleet agent starts: Redis (an error listener logs
 * connection trouble; `/readyz` shows it), the Redis task store, the handler, the HTTP server with
 * `/a2a`, the card, `/healthz`, `/readyz` and `/metrics`, graceful shutdown in order (handler,
 * task store, Redis, `onShutdown`, telemetry), and one "<service> listening" log line.
 *
 * @example
 * await startAgentService({ serviceName: 'web-agent', config, logger, telemetry,
 *   createHandler: ({ store, url }) => createWebHandler({ researcher, store, url, logger }) });
 */
export async function startAgentService({
  serviceName,
  config,
  logger,
  telemetry,
  createHandler,
  bodyLimit,
  internalRoutes,
  readinessChecks,
  availability,
  onShutdown = [],
  describe = {},
}: StartAgentServiceOptions): Promise<RunningAgentService> {
  const redis = createFleetRedis(config);
  // Without a listener ioredis reports connection errors as unhandled; /readyz shows the state.
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  const taskStore = new RedisTaskStore({
    redis,
    keyPrefix: `fleet:a2a:${serviceName}`,
    claimReplication: {
      replicas: config.redisClaimReplicas ?? 0,
      waitMs: config.redisClaimWaitMs ?? 1000,
    },
  });
  const url = publicUrlOf(config);
  const handler = createHandler({ store: taskStore, url });
  const checks = {
    ...readinessChecks,
    ...(availability === undefined ? {} : { availability: availabilityReadiness(availability) }),
  };
  const server = await serveAgent({
    serviceName,
    handler,
    taskStore,
    redis,
    internalToken: config.internalToken,
    logger,
    ...(bodyLimit === undefined ? {} : { bodyLimit }),
    ...(internalRoutes === undefined ? {} : { internalRoutes }),
    readinessChecks: checks,
    port: config.port,
    host: config.host,
    production: config.nodeEnv === 'production',
    onShutdown: [...onShutdown, () => telemetry.shutdown()],
  });
  logger.info(
    { url: server.url, card: url, ...describe, tracing: telemetry.enabled },
    `${serviceName} listening`,
  );
  if (availability !== undefined && availability.state !== 'ready') {
    logger.warn({ availability }, `${serviceName} ${describeAvailability(availability)}`);
  }
  return { server, handler, url };
}
