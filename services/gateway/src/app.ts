import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express from 'express';
import type { FleetRedis } from '@fleet/a2a/server';
import { Counter } from 'prom-client';
import type { RunFileStore } from '@fleet/a2a';
import type { A2AClient } from '@fleet/a2a/client';
import {
  assertHeadersSentOnce,
  addLogFields,
  assignRequestId,
  createMetrics,
  createServiceApp,
  observeResponse,
  sendError,
  type HttpLogger,
} from '@fleet/http';
import type { MemoryStore } from '@fleet/memory';
import type { SessionStore } from '@fleet/sessions';
import { requestLogFields } from '@fleet/telemetry';
import { agentsRouter, type AgentsClient } from './agents';
import {
  authenticate,
  authenticateRequest,
  createApiKeyRing,
  SINGLE_HEADERS,
  type ApiKeyEntry,
} from './auth';
import { createChatCompletionsHandler, type ChatCompletionsOptions } from './chat';
import { consoleRouter } from './console';
import { documentsRouter, type DocumentsClient } from './documents';
import { createEmbeddingsHandler } from './embeddings';
import { filesRouter, type AttachmentLimits } from './files';
import { createApprovalStateCodec, mcpRouter, requestStateKey, type McpRouterOptions } from './mcp';
import { memoryRouter } from './memory';
import { modelsRoute } from './models';
import { createRedisGate } from './redis';
import { createResponsesHandler } from './responses';
import { createRouteClassifier, type RouteClassifier } from './routing';
import { sessionsRouter } from './sessions';
import {
  admitHotRequest,
  createTenantLimiter,
  limitApiRequests,
  NO_REQUEST_LIMITS,
  type LimitedRoute,
  type RequestLimits,
  type TenantLimiter,
  type TenantLimiterOptions,
} from './tenant-limits';
import type { ToolPermissions } from './tool-permissions';
import type { UpstreamClient } from './upstream';

/** The largest document upload when `uploadLimit` is not given: 25 MiB. */
const DEFAULT_UPLOAD_LIMIT = 25 * 1024 * 1024;

/** Everything the gateway app is built from. `main.ts` assembles these; tests pass their own. */
export interface AppDependencies {
  apiKeys: readonly ApiKeyEntry[];
  /** Undefined in offline mode. */
  upstreamClient: UpstreamClient | undefined;
  /** The orchestrator's A2A client; undefined without an internal token. */
  orchestratorClient?: A2AClient | undefined;
  /**
   * The reasoning agent's A2A client and base URL (`X-Routing-Mode: reasoning`); undefined without
   * an internal token.
   */
  reasoningAgent?: { client: A2AClient; url: string } | undefined;
  /**
   * The orchestrator's agent listing (`GET /v1/agents`, `createAgentsClient`); undefined without an
   * internal token (the route answers 503).
   */
  agents?: AgentsClient | undefined;
  /**
   * Each tenant's tool policy (GATEWAY_TOOL_PERMISSIONS): sent with every orchestrated, resumed and
   * reasoning request, and applied to `GET /v1/agents`. @default every tool permitted
   */
  toolPermissions?: ToolPermissions | undefined;
  /** The RAG agent's documents commands (`/v1/documents`); undefined without an internal token. */
  documents?: DocumentsClient | undefined;
  /**
   * The fleet's file store (run files: `GET /v1/files/{id}` and its content, attachments sent by
   * `file-…` id); undefined without an internal token (those routes answer 503).
   */
  files?: RunFileStore | undefined;
  /**
   * Attachments per request and decoded bytes per attachment (`GATEWAY_MAX_ATTACHMENTS`,
   * `GATEWAY_MAX_ATTACHMENT_BYTES`). @default 8 of 4 MiB
   */
  attachmentLimits?: AttachmentLimits | undefined;
  /** Largest document upload in bytes (`GATEWAY_UPLOAD_LIMIT`). @default 26214400 (25 MiB) */
  uploadLimit?: number;
  /** Sessions and approvals in Redis (`@fleet/sessions`): the sessions API and `X-Session-ID`. */
  sessions: SessionStore;
  /** Long-term memory (`GET`/`DELETE /v1/memory`); undefined: those routes are not served. */
  memory?: MemoryStore | undefined;
  /**
   * The Redis the sessions live in; `/readyz` pings it, and routes that need Redis answer 503 while
   * it is disconnected ({@link createRedisGate}).
   */
  redis: Pick<FleetRedis, 'ping' | 'status' | 'on'>;
  /** The 503 message for passthrough in offline mode. */
  offlineReason: string;
  bodyLimit: number;
  /** Characters of message text an agent-route request may carry. @default 262144 */
  agentTextLimit?: number;
  logger: HttpLogger;
  /** Adds stacks to 500s outside production. @default false */
  exposeStack?: boolean;
  /** `/readyz` answers 503 once this returns true. */
  isShuttingDown?: () => boolean;
  /** @default true */
  metrics?: boolean;
  /**
   * `X-Routing-Mode: auto`: the classifier (`createRouteClassifier`), and the upstream model a
   * `fleet-auto` request is sent with when it goes to passthrough (`LLM_MODEL`).
   * @default the keyword heuristic alone, and the body forwarded unchanged
   */
  autoRouting?: { classifier: RouteClassifier; passthroughModel?: string } | undefined;
  /**
   * The built web console to serve at `/console` (`CONSOLE_BUNDLE_DIR` from `@fleet/console`,
   * `GATEWAY_CONSOLE`); undefined: no console.
   */
  consoleDir?: string | undefined;
  /**
   * The fleet as an MCP server at `/mcp` (docs/mcp.md): `enabled: false` serves nothing there
   * (`GATEWAY_MCP_ENABLED`); hosts and origins allowed beside the loopback ones
   * (`GATEWAY_MCP_ALLOWED_HOSTS`, `GATEWAY_MCP_ALLOWED_ORIGINS`); the tracer of its `tools/call`
   * spans (tests).
   * @default served, loopback hosts and origins only, the global tracer
   */
  mcp?: {
    enabled?: boolean;
    allowedHosts?: readonly string[];
    allowedOrigins?: readonly string[];
    /**
     * The key `ask` signs an approval's `requestState` with (`requestStateKey`: GATEWAY_MCP_STATE_SECRET,
     * else derived from FLEET_INTERNAL_TOKEN). @default a random key of this process
     */
    stateKey?: Buffer;
    tracer?: McpRouterOptions['tracer'];
    /**
     * The 2025-11-25 connections' capabilities, elicitation answers and cancels, shared by the
     * replicas (`createRedisLegacyExchanges`). @default in this process
     */
    legacy?: McpRouterOptions['legacy'];
  };
  /**
   * Per-tenant limits shared by every replica through this Redis (docs/limits.md): requests per
   * window per route, tokens per day, concurrent orchestrated runs and runs waiting for a person.
   * Undefined: nothing is limited.
   */
  tenantLimits?: Omit<TenantLimiterOptions, 'sessions' | 'logger' | 'onLimited'> | undefined;
}

/** Which request bucket each hot path counts in. */
const HOT_ROUTE_BUCKETS = {
  '/v1/chat/completions': 'chat',
  '/v1/responses': 'responses',
  '/v1/embeddings': 'embeddings',
} as const satisfies Record<string, LimitedRoute>;

/** A route on the hot path: the request after authentication, with its id and tenant. */
type HotRouteHandler = (
  req: IncomingMessage,
  context: { res: ServerResponse; requestId: string; tenant: string; limits: RequestLimits },
) => Promise<void>;

/** The `POST` paths served beside express (docs/adr/0002-gateway-hot-path.md). */
const HOT_PATHS = ['/v1/chat/completions', '/v1/responses', '/v1/embeddings'] as const;
type HotPath = (typeof HOT_PATHS)[number];

/**
 * Whether a request is for one of the hot paths. Their trace context is carried explicitly rather
 * than entered (`telemetry.traceRequests(app, { enterContext })` in main.ts, docs/tracing.md §7).
 */
export function isHotPathRequest(req: IncomingMessage): boolean {
  return hotPathOf(req) !== undefined;
}

/** The hot path a request is for (the path exactly, or followed by a query), or undefined. */
function hotPathOf(req: IncomingMessage): HotPath | undefined {
  if (req.method !== 'POST' || req.url === undefined) return undefined;
  const { url } = req;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return (HOT_PATHS as readonly string[]).includes(path) ? (path as HotPath) : undefined;
}

/**
 * The hot paths' one handler: a request id, the access log and metrics (`observeResponse`), the
 * key's tenant, its limits (one Redis round trip, when limits are on), then the path's route;
 * failures rendered by `sendError` as on the express routes.
 */
function createHotPathHandler({
  keyRing,
  observe,
  errorOptions,
  limiter,
  routes,
}: {
  keyRing: ReturnType<typeof createApiKeyRing>;
  observe: Parameters<typeof observeResponse>[1];
  errorOptions: Omit<Parameters<typeof sendError>[2], 'context'>;
  limiter: TenantLimiter | undefined;
  routes: Record<HotPath, HotRouteHandler>;
}) {
  return async function handleHotPath(
    path: HotPath,
    { req, res }: { req: IncomingMessage; res: ServerResponse },
  ): Promise<void> {
    const id = assignRequestId(req, res);
    observeResponse({ req, res, path, route: () => path }, observe);
    // The access log line is written outside the request's trace context: it gets the ids here.
    const traceFields = requestLogFields(req);
    if (traceFields['trace_id'] !== undefined) addLogFields(res, traceFields);
    try {
      assertHeadersSentOnce(req, SINGLE_HEADERS);
      const tenant = authenticateRequest(keyRing, {
        authorization: req.headers.authorization,
        res,
      });
      const limits =
        limiter === undefined
          ? NO_REQUEST_LIMITS
          : await admitHotRequest(limiter, { tenant, route: HOT_ROUTE_BUCKETS[path], req, res });
      await routes[path](req, { res, requestId: id, tenant, limits });
    } catch (error) {
      sendError(res, error, { ...errorOptions, context: { method: 'POST', path } });
    }
  };
}

/**
 * The tenant limiter, its refusals counted in `gateway_rate_limited_total{tenant, limit}`
 * (tenants come from GATEWAY_API_KEYS, so the labels stay few); undefined without limits.
 */
function createLimiter({
  tenantLimits,
  sessions,
  logger,
  metrics,
}: {
  tenantLimits: AppDependencies['tenantLimits'];
  sessions: SessionStore;
  logger: HttpLogger;
  metrics: ReturnType<typeof createMetrics> | undefined;
}): TenantLimiter | undefined {
  if (tenantLimits === undefined) return undefined;
  const limited =
    metrics === undefined
      ? undefined
      : new Counter({
          name: 'gateway_rate_limited_total',
          help: 'Requests the gateway refused with 429 because a tenant limit was reached, by tenant and limit (requests, tokens, runs, waiting).',
          labelNames: ['tenant', 'limit'],
          registers: [metrics.registry],
        });
  return createTenantLimiter({
    ...tenantLimits,
    sessions,
    logger,
    onLimited: (tenant, limit) => limited?.inc({ tenant, limit }),
  });
}

/** The chat completions route's options (shared by `/v1/responses` and the MCP `ask` tool). */
function chatRouteOptions(
  deps: AppDependencies,
  redisGate: ReturnType<typeof createRedisGate>,
): ChatCompletionsOptions {
  const { upstreamClient, autoRouting } = deps;
  return {
    upstreamClient,
    orchestratorClient: deps.orchestratorClient,
    reasoningAgent: deps.reasoningAgent,
    sessions: deps.sessions,
    redisGate,
    offlineReason: deps.offlineReason,
    bodyLimit: deps.bodyLimit,
    agentTextLimit: deps.agentTextLimit,
    routeClassifier:
      autoRouting?.classifier ??
      createRouteClassifier({
        client: undefined,
        offline: upstreamClient === undefined,
        model: 'none',
      }),
    passthroughModel: autoRouting?.passthroughModel,
    toolPermissions: deps.toolPermissions,
    files: deps.files,
    documents: deps.documents,
    attachmentLimits: deps.attachmentLimits,
    agents: deps.agents,
  };
}

/** The express routes under `/v1` (all but the hot paths): authenticated, limited, uncached. */
function v1Router(
  deps: AppDependencies,
  {
    keyRing,
    limiter,
    redisGate,
  }: {
    keyRing: ReturnType<typeof createApiKeyRing>;
    limiter: TenantLimiter | undefined;
    redisGate: ReturnType<typeof createRedisGate>;
  },
): express.Router {
  const { agents, toolPermissions, sessions, orchestratorClient, logger, memory } = deps;
  const v1 = express.Router();
  // Answers are the caller's own data, fetched with a key: no browser or proxy keeps them.
  v1.use(function noStore(_req, res, next) {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  v1.use(authenticate(keyRing));
  if (limiter !== undefined) v1.use(limitApiRequests(limiter));
  v1.get('/models', modelsRoute({ upstreamClient: deps.upstreamClient, logger }));
  // Everything below keeps its state in the fleet's Redis: 503 at once while it is down.
  v1.use(['/sessions', '/memory', '/documents'], redisGate.middleware());
  v1.use(agentsRouter({ agents, toolPermissions }));
  v1.use(sessionsRouter({ store: sessions, orchestratorClient, logger, toolPermissions }));
  v1.use(
    documentsRouter({
      documents: deps.documents,
      uploadLimit: deps.uploadLimit ?? DEFAULT_UPLOAD_LIMIT,
    }),
  );
  v1.use(filesRouter({ files: deps.files }));
  if (memory !== undefined) v1.use(memoryRouter({ store: memory }));
  return v1;
}

/**
 * Builds the gateway: the OpenAI-compatible API under `/v1` (keys → tenants, routing, passthrough,
 * orchestration, sessions and approvals, documents), the fleet as an MCP server at `/mcp`, the web
 * console at `/console`, health
 * (`/readyz` pings Redis) and metrics. Pure: no environment, no sockets (CONTRIBUTING.md
 * convention 3).
 *
 * `POST /v1/chat/completions`, `/v1/responses` and `/v1/embeddings` are served on a plain
 * `node:http` path beside express: they are the gateway's hot paths, and express's per-request work
 * measured as more than the rest of the proxying together (docs/adr/0002-gateway-hot-path.md).
 * They use the same request ids, auth, errors, logs and metrics as the express routes.
 *
 * With `tenantLimits`, each tenant's requests are counted per route (the hot paths each, the rest
 * of `/v1` together), its token budget, concurrent and waiting orchestrated runs checked as a
 * request starts, and a refused one answered `429` in OpenAI's shape (docs/limits.md).
 *
 * @example
 * const app = createApp({ apiKeys, upstreamClient, sessions, redis, offlineReason: OFFLINE_HINT, bodyLimit: 8 << 20, logger });
 * http.createServer(app).listen(8080);
 */
export function createApp(deps: AppDependencies): RequestListener {
  const {
    apiKeys,
    upstreamClient,
    documents,
    files,
    sessions,
    redis,
    offlineReason,
    bodyLimit,
    logger,
    exposeStack = false,
    isShuttingDown = () => false,
    metrics: withMetrics = true,
    consoleDir,
    mcp = {},
    tenantLimits,
  } = deps;
  const keyRing = createApiKeyRing(apiKeys);
  const metrics = withMetrics ? createMetrics({ serviceName: 'gateway' }) : undefined;
  const limiter = createLimiter({ tenantLimits, sessions, logger, metrics });
  const errorOptions = { format: 'openai', logger, exposeStack } as const;
  const redisGate = createRedisGate(redis);

  const routeOptions = chatRouteOptions(deps, redisGate);
  const app = createServiceApp({
    serviceName: 'gateway',
    logger,
    isShuttingDown,
    exposeStack,
    errorFormat: 'openai',
    metrics: metrics ?? false,
    readinessChecks: {
      redis: async () => {
        await redis.ping();
      },
    },
    routes: (root) => {
      root.use('/v1', v1Router(deps, { keyRing, limiter, redisGate }));
      if (mcp.enabled !== false) {
        root.use(
          mcpRouter({
            keyRing,
            limiter,
            allow: { hosts: mcp.allowedHosts ?? [], origins: mcp.allowedOrigins ?? [] },
            tracer: mcp.tracer,
            documents,
            sessions,
            files,
            logger,
            route: routeOptions,
            stateCodec: createApprovalStateCodec(mcp.stateKey ?? requestStateKey({})),
            legacy: mcp.legacy,
          }),
        );
      }
      if (consoleDir !== undefined) root.use(consoleRouter({ bundleDir: consoleDir }));
    },
  });

  const handleHotPath = createHotPathHandler({
    keyRing,
    observe: { logger, metrics },
    errorOptions,
    limiter,
    routes: {
      '/v1/chat/completions': createChatCompletionsHandler(routeOptions),
      '/v1/responses': createResponsesHandler(routeOptions),
      '/v1/embeddings': createEmbeddingsHandler({ upstreamClient, offlineReason, bodyLimit }),
    },
  });

  return function gateway(req: IncomingMessage, res: ServerResponse): void {
    const path = hotPathOf(req);
    if (path !== undefined) void handleHotPath(path, { req, res });
    else app(req, res);
  };
}
