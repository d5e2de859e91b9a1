import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { toNodeHandler, type NodeIncomingMessageLike } from '@modelcontextprotocol/node';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import { FleetError, UnauthenticatedError } from '@fleet/errors';
import { assertHeadersSentOnce, readBody } from '@fleet/http';
import type { WithSpanOptions } from '@fleet/telemetry';
import { authenticateRequest, SINGLE_HEADERS, type ApiKeyRing } from '../auth';
import type { TenantLimiter } from '../tenant-limits';
import {
  createApprovalStateCodec,
  requestStateKey,
  type ApprovalStateCodec,
} from './approval-state';
import { createFleetMcpServer, type FleetMcpDependencies } from './fleet-mcp-server';
import { createLegacyExchanges, type LegacyExchanges } from './legacy-exchanges';
import { applyMcpCors, checkMcpRequestSource, type McpAllowList } from './request-guards';
import { readToolCall, traceToolCall } from './tool-call-trace';

/** The largest `/mcp` request body: a JSON-RPC request here is a few KiB. */
export const MCP_BODY_LIMIT = 1024 * 1024;

/** The challenge a request without a valid key is answered with (RFC 6750). */
export const MCP_AUTH_CHALLENGE = 'Bearer realm="fleet", error="invalid_token"';

/** What `/mcp` needs. */
export interface McpRouterOptions extends Omit<FleetMcpDependencies, 'stateCodec' | 'legacy'> {
  /**
   * Signs the `requestState` of approvals asked over 2026-07-28. @default a codec with a key of
   * this process ({@link requestStateKey} without a secret)
   */
  stateCodec?: ApprovalStateCodec | undefined;
  /**
   * The 2025-11-25 connections' capabilities, elicitation answers and cancels: shared by the
   * replicas through Redis (`createRedisLegacyExchanges`), or in this process.
   * @default {@link createLegacyExchanges} (one gateway only)
   */
  legacy?: LegacyExchanges | undefined;
  keyRing: ApiKeyRing;
  /** Per-tenant request limits (counted in the `api` bucket); undefined: nothing is limited. */
  limiter: TenantLimiter | undefined;
  /** Hosts and origins allowed beside the loopback ones (`GATEWAY_MCP_ALLOWED_*`). */
  allow: McpAllowList;
  /** Largest request body. @default {@link MCP_BODY_LIMIT} */
  bodyLimit?: number;
  /** The tracer of the `tools/call` spans. @default the global one */
  tracer?: WithSpanOptions['tracer'];
}

/** The tenant {@link mcpRouter} put in the `authInfo` it hands the MCP handler. */
function tenantOf(authInfo: AuthInfo | undefined): string {
  const tenant = authInfo?.extra?.['tenant'];
  if (typeof tenant !== 'string')
    throw new Error('An /mcp request reached the server unauthenticated.');
  return tenant;
}

/** The body as JSON, or undefined when it is not. */
function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The `initialize` request's client capabilities, when the body is one. */
function initializeCapabilities(message: unknown): { capabilities: unknown } | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const record = message as { method?: unknown; params?: { capabilities?: unknown } };
  if (record.method !== 'initialize') return undefined;
  return { capabilities: record.params?.capabilities };
}

/**
 * The request as the MCP handler reads it: its method, URL and headers, the tenant as `auth`, and
 * the body already read (within the limit) replayed as its stream.
 */
function withBody(req: IncomingMessage, body: Buffer, auth: AuthInfo): NodeIncomingMessageLike {
  return {
    method: req.method ?? 'GET',
    url: req.url ?? '/mcp',
    headers: req.headers,
    auth,
    async *[Symbol.asyncIterator]() {
      await Promise.resolve();
      if (body.length > 0) yield body;
    },
  };
}

/**
 * The fleet as an MCP server at `/mcp` (Streamable HTTP; docs/mcp.md): one route serving both
 * protocol eras (the 2025-11-25 `initialize` handshake, statelessly, and the 2026-07-28 revision)
 * with the official SDK's `createMcpHandler`, one {@link createFleetMcpServer} per request.
 *
 * In front of it, in order: `Host` and `Origin` checked against the allow-list (403, DNS-rebinding
 * protection); the API key as a bearer token, the same keys and tenants as `/v1` (401 with
 * `WWW-Authenticate: Bearer realm="fleet", error="invalid_token"`); the tenant's request limit (429,
 * counted with the rest of `/v1`); the body read within `bodyLimit` (413). Errors before the
 * handler are the gateway's JSON error body; JSON-RPC errors after it are the SDK's. A
 * `tools/call` runs inside its own `TOOL` span, which continues the caller's trace when the
 * request's `params._meta` carries a `traceparent` ({@link traceToolCall}).
 *
 * The 2025-11-25 serving is stateless, so the router carries what the SDK's per-request instances
 * cannot: an `initialize` is answered with an `Mcp-Session-Id` naming the connection (its
 * capabilities remembered in `legacy`: Redis, for replicas), and a POSTed answer to an
 * elicitation or a `notifications/cancelled` for an `ask` in flight goes to that call (202), on
 * whichever replica holds it, instead of a fresh instance ({@link LegacyExchanges}).
 *
 * @example
 * root.use(mcpRouter({ keyRing, limiter, allow: { hosts: [], origins: [] }, documents, sessions, files, logger }));
 */
export function mcpRouter({
  keyRing,
  limiter,
  allow,
  bodyLimit = MCP_BODY_LIMIT,
  stateCodec = createApprovalStateCodec(requestStateKey({})),
  tracer,
  legacy = createLegacyExchanges(),
  ...rest
}: McpRouterOptions): Router {
  const deps: FleetMcpDependencies = { ...rest, stateCodec, legacy, limiter };
  const handler = createMcpHandler(
    ({ era, authInfo, requestInfo }) =>
      createFleetMcpServer(
        {
          tenant: tenantOf(authInfo),
          era,
          connectionId: requestInfo?.headers.get('mcp-session-id') ?? undefined,
        },
        deps,
      ),
    {
      maxRequestBodySize: bodyLimit,
      onerror: (error) => deps.logger.warn({ err: error }, 'MCP request failed'),
    },
  );
  const serve = toNodeHandler(handler, {
    maxRequestBodySize: bodyLimit,
    onerror: (error) => deps.logger.error({ err: error }, 'MCP handler failed'),
  });
  const router = express.Router();

  router.all('/mcp', async function mcpEndpoint(req: Request, res: Response, next: NextFunction) {
    try {
      res.setHeader('Cache-Control', 'no-store');
      checkMcpRequestSource(req, allow);
      // A browser client's preflight carries no key: answered here, before authentication.
      if (applyMcpCors(req, res)) return;
      let tenant: string;
      try {
        assertHeadersSentOnce(req, SINGLE_HEADERS);
        tenant = authenticateRequest(keyRing, { authorization: req.headers.authorization, res });
      } catch (error) {
        if (error instanceof UnauthenticatedError) {
          res.setHeader('WWW-Authenticate', MCP_AUTH_CHALLENGE);
        }
        throw error;
      }
      if (limiter !== undefined) await limiter.admit({ tenant, route: 'api', res });
      const body =
        req.method === 'POST' ? await readBody(req, { limit: bodyLimit }) : Buffer.alloc(0);
      const message = parseJson(body);
      const connection = req.headers['mcp-session-id'];
      const connectionId = typeof connection === 'string' ? connection : undefined;
      // A 2025-era client's answer to an elicitation, or its cancel, for a call in flight: the
      // stateless serving would hand it to a fresh server instance that knows nothing of the call.
      if (await legacy.route(tenant, connectionId, message)) {
        res.status(202).end();
        return;
      }
      const initialize = initializeCapabilities(message);
      if (initialize !== undefined) {
        // Names the 2025-era connection, so its later calls find what it declared.
        res.setHeader('Mcp-Session-Id', await legacy.initialized(tenant, initialize.capabilities));
      }
      const call = readToolCall(message);
      // The key itself stays here: the server instance only learns whose request it serves.
      const auth: AuthInfo = { token: 'api-key', clientId: tenant, scopes: [], extra: { tenant } };
      const request = withBody(req, body, auth);
      // A tool call gets its own span, continuing the caller's trace when `_meta` carries one.
      // The JSON already parsed goes along, so the SDK does not clone and read the body again;
      // a body that is not JSON is replayed as read, for the SDK's own parse error.
      const handle = () => serve(request, res, message);
      if (call === undefined) await handle();
      else await traceToolCall({ req, call, tenant, tracer }, handle);
    } catch (error) {
      if (res.headersSent) {
        if (!FleetError.isInstance(error)) deps.logger.error({ err: error }, 'MCP response failed');
        res.end();
        return;
      }
      next(error);
    }
  });

  return router;
}
