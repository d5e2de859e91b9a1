// The gateway's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, Redis and the
// session store, the upstream, orchestrator and RAG agent clients and the HTTP server are built here and
// nowhere else.
import { config, telemetry } from './instrumentation';
import type { RunFileStore } from '@fleet/a2a';
import { A2AClient, createRunFilesClient } from '@fleet/a2a/client';
import { createFleetRedis, type FleetRedis } from '@fleet/a2a/server';
import { CONSOLE_BUNDLE_DIR, consoleIsBuilt } from '@fleet/console';
import { runMain, startServer } from '@fleet/http';
import { createLlmClient, OFFLINE_HINT, resolveUpstream } from '@fleet/llm';
import { createMemoryStore } from '@fleet/memory';
import { createSessionStore } from '@fleet/sessions';
import { createLogger } from '@fleet/telemetry';
import { createAgentsClient } from './agents';
import { createApp, isHotPathRequest, type AppDependencies } from './app';
import { createDocumentsClient } from './documents';
import { createRedisLegacyExchanges, requestStateKey } from './mcp';
import { createRouteClassifier } from './routing';
import type { TenantLimitTable } from './tenant-limits';
import { createToolPermissions } from './tool-permissions';
import { createUpstreamClient } from './upstream';

/** The fleet's agents over A2A; each undefined without the internal token to call it with. */
function createAgentClients() {
  const token = config.internalToken;
  if (token === undefined) {
    return {
      orchestratorClient: undefined,
      reasoningAgent: undefined,
      documents: undefined,
      agents: undefined,
    };
  }
  return {
    orchestratorClient: new A2AClient({
      url: `${config.orchestratorUrl}/a2a`,
      token,
      // An idle limit: a run's events can be minutes apart (slow agents, approvals), and the
      // orchestrator's keep-alives (every 15 s) reset it, so a waiting run keeps its client.
      timeoutMs: config.agentIdleTimeoutMs,
    }),
    reasoningAgent: {
      client: new A2AClient({
        url: `${config.reasoningAgentUrl}/a2a`,
        token,
        // Steps can be a model call apart (LLM_TIMEOUT_MS); the agent's keep-alives (every 15 s)
        // reset this idle limit.
        timeoutMs: config.agentIdleTimeoutMs,
      }),
      url: config.reasoningAgentUrl,
    },
    agents: createAgentsClient({ orchestratorUrl: config.orchestratorUrl, token }),
    documents: createDocumentsClient({
      client: new A2AClient({ url: `${config.ragAgentUrl}/a2a`, token }),
      agentUrl: config.ragAgentUrl,
      ingestTimeoutMs: config.documentIngestTimeoutMs,
      // Originals are read from the agent's byte route: no A2A task kept for each download.
      contentUrl: config.ragAgentUrl,
      token,
    }),
  };
}

/**
 * The fleet's file store (run files: `/v1/files`, attachments sent by `file-…` id): the RAG
 * agent's `files` commands, like the documents, with bytes read from its byte route
 * (`/internal/files/:id/content`, no A2A task per read); undefined without the internal token
 * (those routes then answer 503).
 */
function openRunFileStore(settings: typeof config): RunFileStore | undefined {
  if (settings.internalToken === undefined) return undefined;
  return createRunFilesClient({
    client: new A2AClient({ url: `${settings.ragAgentUrl}/a2a`, token: settings.internalToken }),
    agentUrl: settings.ragAgentUrl,
    contentUrl: settings.ragAgentUrl,
    token: settings.internalToken,
  });
}

/** `X-Routing-Mode: auto`: the upstream model decides; offline or failing, the heuristic does. */
function createClassifier(upstream: ReturnType<typeof resolveUpstream>) {
  return createRouteClassifier({
    client: upstream.offline
      ? undefined
      : createLlmClient({ upstream, timeoutMs: config.routingClassifierTimeoutMs, maxRetries: 0 }),
    model: config.routingClassifierModel ?? config.llmModel,
    temperature: config.routingClassifierTemperature,
    timeoutMs: config.routingClassifierTimeoutMs,
    cacheSize: config.routingCacheSize,
    cacheTtlSeconds: config.routingCacheTtlSeconds,
  });
}

/** The limits file's overrides, then the inline variable's on top, limit by limit. */
function mergeTenantLimits(
  file: TenantLimitTable | undefined,
  inline: TenantLimitTable | undefined,
): TenantLimitTable {
  const merged: TenantLimitTable = { ...file };
  for (const [tenant, limits] of Object.entries(inline ?? {})) {
    merged[tenant] = { ...merged[tenant], ...limits };
  }
  return merged;
}

/** The MCP endpoint's options, from the configuration. */
function mcpOptions(): NonNullable<AppDependencies['mcp']> {
  return {
    enabled: config.mcpEnabled,
    allowedHosts: config.mcpAllowedHosts,
    allowedOrigins: config.mcpAllowedOrigins,
    stateKey: requestStateKey({
      secret: config.mcpStateSecret,
      internalToken: config.internalToken,
    }),
  };
}

/** The tenants' limits, kept in `redis`, from the configuration; undefined when they are off. */
function tenantLimitsOptions(redis: FleetRedis): AppDependencies['tenantLimits'] {
  return config.limitsEnabled
    ? {
        redis,
        defaults: {
          rpm: config.limitRpm,
          runs: config.limitRuns,
          waiting: config.limitWaiting,
          tokens_per_day: config.limitTokensPerDay,
        },
        tenants: mergeTenantLimits(config.tenantLimitsFile, config.tenantLimits),
        windowSeconds: config.limitWindowSeconds,
        syncIntervalMs: config.limitSyncMs,
      }
    : undefined;
}

async function main(): Promise<void> {
  const logger = createLogger({ service: 'gateway', level: config.logLevel });
  // Sessions and approvals only: passthrough never touches Redis, so the gateway boots and proxies
  // without it (`/readyz` says Redis is missing; ioredis keeps reconnecting). While it is down,
  // commands fail fast and the routes that need it answer 503 with Retry-After.
  const redis = createFleetRedis(config);
  redis.on('error', (error) => logger.warn({ err: error }, 'redis connection error'));
  const sessions = createSessionStore({ redis, ttlSeconds: config.sessionTtlSeconds });
  const memory = createMemoryStore({ redis, logger });
  // What a 2025-era MCP client's connection declared, and its answers and cancels for calls in
  // flight, shared by every replica: no sticky sessions needed for /mcp.
  const mcpLegacy = createRedisLegacyExchanges({ redis, logger });
  const upstream = resolveUpstream({ apiKey: config.openaiApiKey, baseURL: config.openaiBaseUrl });
  const upstreamClient = upstream.offline
    ? undefined
    : createUpstreamClient({ upstream, timeoutMs: config.llmTimeoutMs, logger });
  const { orchestratorClient, reasoningAgent, documents, agents } = createAgentClients();
  const routeClassifier = createClassifier(upstream);
  // The app asks whether shutdown has begun; the server that knows is started after the app.
  const lifecycle = { isShuttingDown: (): boolean => false };
  const app = createApp({
    apiKeys: config.apiKeys,
    upstreamClient,
    orchestratorClient,
    reasoningAgent,
    agents,
    toolPermissions: createToolPermissions({
      file: config.toolPermissionsFile,
      inline: config.toolPermissions,
    }),
    documents,
    files: openRunFileStore(config),
    attachmentLimits: {
      maxAttachments: config.maxAttachments,
      maxAttachmentBytes: config.maxAttachmentBytes,
    },
    uploadLimit: config.uploadLimit,
    sessions,
    memory,
    redis,
    offlineReason: OFFLINE_HINT,
    bodyLimit: config.bodyLimit,
    agentTextLimit: config.agentTextLimit,
    logger,
    exposeStack: config.nodeEnv !== 'production',
    isShuttingDown: () => lifecycle.isShuttingDown(),
    autoRouting: { classifier: routeClassifier, passthroughModel: config.llmModel },
    consoleDir: config.console ? CONSOLE_BUNDLE_DIR : undefined,
    mcp: { ...mcpOptions(), legacy: mcpLegacy },
    tenantLimits: tenantLimitsOptions(redis),
  });
  if (config.console && !consoleIsBuilt()) {
    logger.warn(
      { consoleDir: CONSOLE_BUNDLE_DIR },
      '/console answers 503: the console has not been built (run `pnpm build`)',
    );
  }
  const running = await startServer({
    // The hot paths carry their trace context explicitly (docs/tracing.md §7).
    app: telemetry.traceRequests(app, {
      enterContext: config.traceContext === 'active' ? undefined : (req) => !isHotPathRequest(req),
    }),
    port: config.port,
    host: config.host,
    logger,
    maxHeaderSize: config.headerLimit,
    errorFormat: 'openai',
    onShutdown: [
      () => upstreamClient?.close(),
      () => sessions.close(),
      () => mcpLegacy.close(),
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
      upstream: upstream.offline ? 'offline' : upstream.baseURL,
      orchestrator: orchestratorClient === undefined ? 'unset' : config.orchestratorUrl,
      reasoningAgent: reasoningAgent === undefined ? 'unset' : config.reasoningAgentUrl,
      ragAgent: documents === undefined ? 'unset' : config.ragAgentUrl,
      tenants: new Set(config.apiKeys.map((entry) => entry.tenant)).size,
      limits: config.limitsEnabled ? 'on' : 'off',
      tracing: telemetry.enabled,
    },
    'gateway listening',
  );
  if (upstream.offline) logger.warn({}, OFFLINE_HINT);
}

runMain('gateway', main);
