import {
  startServer,
  type ReadinessCheck,
  type RunningServer,
  type ShutdownHook,
} from '@fleet/http';
import type { FleetRedis } from '../create-fleet-redis';
import { createAgentApp, type AgentAppDependencies } from './create-agent-app';

/** What {@link serveAgent} needs: the app's parts, where to listen, and what to close. */
export interface ServeAgentOptions extends Omit<
  AgentAppDependencies,
  'readinessChecks' | 'isShuttingDown' | 'exposeStack'
> {
  serviceName: string;
  port: number;
  host: string;
  /** The task store's Redis connection: checked by `/readyz`, closed after the task store. */
  redis: FleetRedis;
  /** The task store, closed after the handler. */
  taskStore: { close(): Promise<void> | void };
  /** Hides stacks in 500s. */
  production: boolean;
  /** `/readyz` checks besides Redis (e.g. the database). */
  readinessChecks?: Record<string, ReadinessCheck>;
  /** Run after Redis is closed, in order: the database, then `telemetry.shutdown()` last. */
  onShutdown?: ShutdownHook[];
}

/**
 * Serves an A2A agent the way every fleet agent does: the app from {@link createAgentApp} with a
 * Redis readiness check (turning 503 once shutdown starts), and graceful shutdown that closes the
 * handler (running turns), the task store, Redis, then `onShutdown` (database, telemetry).
 *
 * @example
 * const running = await serveAgent({ serviceName: 'web-agent', handler, taskStore, redis,
 *   internalToken: config.internalToken, logger, port: config.port, host: config.host,
 *   production: config.nodeEnv === 'production', onShutdown: [() => telemetry.shutdown()] });
 */
export async function serveAgent({
  serviceName,
  port,
  host,
  redis,
  taskStore,
  production,
  readinessChecks = {},
  onShutdown = [],
  handler,
  logger,
  ...app
}: ServeAgentOptions): Promise<RunningServer> {
  // The app asks whether shutdown has begun; the server that knows is started after the app.
  const lifecycle = { isShuttingDown: (): boolean => false };
  const running = await startServer({
    app: createAgentApp({
      serviceName,
      handler,
      logger,
      ...app,
      readinessChecks: {
        redis: async () => {
          await redis.ping();
        },
        ...readinessChecks,
      },
      isShuttingDown: () => lifecycle.isShuttingDown(),
      exposeStack: !production,
    }),
    port,
    host,
    logger,
    onShutdown: [
      () => handler.close(),
      () => taskStore.close(),
      async () => {
        await redis.quit().catch(() => redis.disconnect());
      },
      ...onShutdown,
    ],
  });
  lifecycle.isShuttingDown = () => running.isShuttingDown();
  return running;
}
