// The orchestrator's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, Redis, the
// planner and agent clients, the sessions and the HTTP server are built here and nowhere else.
import { config, telemetry } from './instrumentation';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { publicUrlOf } from '@fleet/config';
import { A2AClient, createRunFilesClient } from '@fleet/a2a/client';
import {
  createFleetRedis,
  RedisTaskStore,
  type A2AHandler,
  type FleetRedis,
} from '@fleet/a2a/server';
import { runMain, startServer } from '@fleet/http';
import { createLlmClient, OFFLINE_HINT, resolveUpstream } from '@fleet/llm';
import { createMemoryExtractor, createMemoryStore } from '@fleet/memory';
import { createSessionStore, type SessionStore } from '@fleet/sessions';
import { createLogger, type Logger } from '@fleet/telemetry';
import { createApp } from './app';
import type { RunFileStore } from '@fleet/a2a';
import { createAgentDirectory, guardAvailability, type AvailableAgent } from './discovery';
import {
  createA2AAgentInvoker,
  createAgentBreakers,
  createDiscoveredRunFileStore,
  createStepFilesFetcher,
  maxEventBytesForRunFiles,
} from './execution';
import { createOrchestratorHandler, resumeSessions } from './orchestration';
import { createPlannerClient } from './planning';
import { createRunAdmission, RunScheduler } from './scheduling';

/** The composer's LLM (undefined offline) and, when enabled, long-term memory. */
function createModelServices(redis: FleetRedis, logger: Logger) {
  const upstream = resolveUpstream({ apiKey: config.openaiApiKey, baseURL: config.openaiBaseUrl });
  const llm = upstream.offline
    ? undefined
    : {
        client: createLlmClient({ upstream, timeoutMs: config.llmTimeoutMs }),
        model: config.llmModel,
      };
  const memory = config.memoryEnabled
    ? {
        store: createMemoryStore({ redis, ttlSeconds: config.memoryTtlSeconds, logger }),
        extractor: createMemoryExtractor({
          llm,
          timeoutMs: config.memoryExtractionTimeoutMs,
          logger,
        }),
      }
    : undefined;
  return { offline: upstream.offline, llm, memory };
}

/**
 * The run files client for `agent`, the agent that keeps files (the RAG agent): its `files`
 * commands over A2A and its byte route, with the internal token; one client per agent URL.
 */
const runFileStores = new Map<string, RunFileStore>();
function openRunFileStore(agent: AvailableAgent): RunFileStore | undefined {
  let store = runFileStores.get(agent.url);
  if (store === undefined) {
    store = createRunFilesClient({
      client: new A2AClient({ card: agent.card, token: config.internalToken, maxRetries: 0 }),
      agentUrl: agent.url,
      // Bytes are read over the agent's internal byte route, not as A2A tasks it would keep.
      ...(config.internalToken === undefined
        ? {}
        : { contentUrl: agent.url, token: config.internalToken }),
    });
    runFileStores.set(agent.url, store);
  }
  return store;
}

/**
 * The orchestrator's A2A handler and what it runs on: agent discovery (refreshed in the
 * background), the planner, the agent invoker, and the task store.
 */
function createRunHandler({
  redis,
  logger,
  sessions,
  instanceId,
  llm,
  memory,
}: {
  redis: FleetRedis;
  logger: Logger;
  sessions: SessionStore;
  instanceId: string;
} & Pick<ReturnType<typeof createModelServices>, 'llm' | 'memory'>) {
  const directory = createAgentDirectory({
    urls: config.agentUrls,
    redis,
    token: config.internalToken,
    ttlSeconds: config.cardCacheTtlSeconds,
    logger,
  });
  directory.start();
  void directory.refresh().catch((error: unknown) => {
    logger.warn({ err: error }, 'first agent discovery failed');
  });
  const planner = createPlannerClient({ url: config.plannerUrl, token: config.internalToken });
  const scheduler = new RunScheduler({
    maxActiveRuns: config.maxActiveRuns,
    maxQueuedPerTenant: config.maxQueuedRunsPerTenant,
    maxActivePerTenant: config.maxActiveRunsPerTenant,
  });
  const breakers = createAgentBreakers();
  const store = new RedisTaskStore({ redis, ttlSeconds: config.sessionTtlSeconds });
  const invokeAgent = createA2AAgentInvoker({
    findAgent: (name) => directory.findAgent(name),
    token: config.internalToken,
    logger,
    // An answer may carry the run's files (base64), and no more: the stream is cut beyond that.
    maxEventBytes: maxEventBytesForRunFiles(config.maxRunFileBytes),
  });
  const handler = createOrchestratorHandler({
    url: publicUrlOf(config),
    store,
    logger,
    agent: {
      sessions,
      availableAgents: () => directory.availableAgents(),
      askPlanner: planner.askPlanner,
      // A step for an agent whose card says it cannot do it fails with its reason, unsent.
      invokeAgent: guardAvailability({
        invokeAgent,
        findAgent: (name) => directory.findAgent(name),
      }),
      cancelAgentTask: invokeAgent.cancelTask,
      agentTaskState: invokeAgent.taskState,
      breakers,
      llm,
      logger,
      scheduling: config.scheduling,
      nodeTimeoutMs: config.nodeTimeoutMs,
      progressIntervalMs: config.progressIntervalMs,
      maxHandoffs: config.maxHandoffs,
      replanAfterFailure: config.replanAfterFailure,
      retry: { maxAttempts: config.nodeMaxAttempts },
      // The documents a step names go with it, read from the RAG agent for the run's tenant.
      stepFiles: createStepFilesFetcher({
        availableAgents: () => directory.availableAgents(),
        token: config.internalToken,
      }),
      // The steps' files and the request's attachments, kept in the file store (the RAG agent).
      runFiles: {
        store: createDiscoveredRunFileStore({
          availableAgents: () => directory.availableAgents(),
          open: openRunFileStore,
        }),
        limits: {
          maxFileBytes: config.maxFileBytes,
          maxRunFiles: config.maxRunFiles,
          maxRunBytes: config.maxRunFileBytes,
          ttlSeconds: config.fileTtlSeconds ?? config.sessionTtlSeconds,
        },
      },
      hitlTimeoutSeconds: config.hitlTimeoutSeconds,
      review: {
        timeoutSeconds: config.reviewTimeoutSeconds,
        onTimeout: config.reviewOnTimeout,
        maxRounds: config.maxReviewRounds,
      },
      answerTableRows: config.answerTableRows,
      planConfidence: { threshold: config.planConfidenceThreshold, mode: config.lowConfidence },
      instanceId,
      memory,
      scheduler,
      admission: createRunAdmission(scheduler),
    },
  });
  return { directory, planner, store, handler, breakers, scheduler };
}

/**
 * Open sessions whose orchestrator died without handing them over (SIGKILL, a lost machine)
 * hold a runner lease until it expires; after that, any orchestrator picks them up here, so a
 * run finishes with or without a client (docs/architecture.md §6). Resuming a session another
 * orchestrator runs is a no-op ("running elsewhere"). Runs now, then every RECOVERY_INTERVAL_MS.
 */
function startRecovery({
  handler,
  sessions,
  instanceId,
  logger,
  isShuttingDown,
}: {
  handler: A2AHandler;
  sessions: SessionStore;
  instanceId: string;
  logger: Logger;
  isShuttingDown: () => boolean;
}): void {
  const recover = async (): Promise<void> => {
    if (isShuttingDown()) return;
    const open = await sessions.listActive();
    const orphaned: string[] = [];
    for (const id of open) {
      const probe = await sessions.acquireRunner(id, `${instanceId}:probe`, 1000);
      if (probe === undefined) continue;
      await probe.release();
      orphaned.push(id);
    }
    if (orphaned.length > 0) {
      logger.info({ sessions: orphaned.length }, 'resuming sessions no orchestrator runs');
      await resumeSessions({ handler, sessions, sessionIds: orphaned, logger });
    }
  };
  const recoverSafely = (): void => {
    recover().catch((error: unknown) => logger.warn({ err: error }, 'session recovery failed'));
  };
  recoverSafely();
  if (config.recoveryIntervalMs > 0) {
    const timer = setInterval(recoverSafely, config.recoveryIntervalMs);
    timer.unref();
  }
}

async function main(): Promise<void> {
  const logger = createLogger({ service: 'orchestrator', level: config.logLevel });
  const redis = createFleetRedis(config);
  redis.on('error', (error) => logger.warn({ err: error }, 'redis connection error'));
  const { offline, llm, memory } = createModelServices(redis, logger);

  const sessions = createSessionStore({ redis, ttlSeconds: config.sessionTtlSeconds });
  // One per process: runner leases name it, so a replica never mistakes another's lease for its own.
  const instanceId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const { directory, planner, store, handler, breakers, scheduler } = createRunHandler({
    redis,
    logger,
    sessions,
    instanceId,
    llm,
    memory,
  });
  // Approvals nobody decided while no orchestrator ran are expired now (docs/architecture.md §6);
  // their sessions are resumed below, once the server listens, so they finish without a client.
  const expired = await sessions.expireOverdueApprovals().catch((error: unknown) => {
    logger.warn({ err: error }, 'could not expire overdue approvals');
    return [];
  });

  // The app asks whether shutdown has begun; the server that knows is started after the app.
  const lifecycle = { isShuttingDown: (): boolean => false };
  const app = createApp({
    handler,
    internalToken: config.internalToken,
    availableAgents: () => directory.availableAgents(),
    bodyLimit: config.bodyLimit,
    redis,
    plannerReady: planner.checkReady,
    breakers,
    sessions,
    scheduler,
    logger,
    exposeStack: config.nodeEnv !== 'production',
    isShuttingDown: () => lifecycle.isShuttingDown(),
  });
  const running = await startServer({
    app,
    port: config.port,
    host: config.host,
    logger,
    onShutdown: [
      // Hands the running sessions over (resumable elsewhere), then stops the A2A handler.
      () => handler.close(),
      () => sessions.close(),
      () => store.close(),
      () => directory.close(),
      async () => {
        await redis.quit();
      },
      () => telemetry.shutdown(),
    ],
  });
  lifecycle.isShuttingDown = () => running.isShuttingDown();
  // Hand the running sessions over as soon as shutdown begins, not after the server has waited
  // for their streams (a run waiting for approval keeps its stream open): the streams then end at
  // once and the sessions are free for another orchestrator to resume.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      handler.close().catch((error: unknown) => {
        logger.warn({ err: error }, 'could not hand the running sessions over');
      });
    });
  }
  logger.info(
    {
      url: running.url,
      card: handler.card.supportedInterfaces[0]?.url,
      planner: config.plannerUrl,
      agents: config.agentUrls.length,
      scheduling: config.scheduling,
      maxActiveRuns: config.maxActiveRuns || 'unlimited',
      composer: llm === undefined ? 'offline' : config.llmModel,
      tracing: telemetry.enabled,
      hitlTimeoutSeconds: config.hitlTimeoutSeconds,
      planConfidence: `${config.lowConfidence} below ${config.planConfidenceThreshold}`,
      instanceId,
      memory: memory === undefined ? 'off' : llm === undefined ? 'rules' : 'llm',
    },
    'orchestrator listening',
  );
  if (offline) logger.warn({}, OFFLINE_HINT);
  if (expired.length > 0) logger.info({ approvals: expired.length }, 'expired overdue approvals');
  startRecovery({
    handler,
    sessions,
    instanceId,
    logger,
    isShuttingDown: () => lifecycle.isShuttingDown(),
  });
}

runMain('orchestrator', main);
