import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { bearerTokenCheck, readBody } from '@fleet/http';
import { AbortError, safeParseJson, UnauthenticatedError, ValidationError } from '@fleet/errors';
import {
  ContentTypeNotSupportedError,
  InvalidParamsError,
  JsonRpcParseError,
} from '../../errors/a2a-errors';
import { toJsonRpcError } from '../../errors/json-rpc-error';
import { A2A_ENDPOINT_PATH } from '../build-agent-card';
import type { A2AHandler } from '../create-a2a-handler';
import { sendSse } from './send-sse';

/** The card paths: the current one and the legacy one older clients still fetch (docs/a2a.md §2). */
export const AGENT_CARD_PATHS = [
  '/.well-known/agent-card.json',
  '/.well-known/agent.json',
] as const;

/** Options for {@link a2aRouter}. */
export interface A2ARouterOptions {
  handler: A2AHandler;
  /**
   * When set, `POST /a2a` needs `Authorization: Bearer <internalToken>` (HTTP 401 otherwise). The
   * card stays public.
   */
  internalToken?: string | undefined;
  /** Largest JSON-RPC body in bytes. @default 1048576 (1 MiB) */
  bodyLimit?: number;
  /** Interval of SSE keep-alive comments. @default 15000 */
  keepAliveMs?: number;
  /** `cache-control` of the card. @default 'public, max-age=300' */
  cardCacheControl?: string;
}

function isJsonContentType(header: string | undefined): boolean {
  return header?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

function sendJsonRpcError(res: Response, status: number, error: unknown): void {
  res.status(status).json({ jsonrpc: '2.0', id: null, error: toJsonRpcError(error) });
}

/**
 * The express edge of an A2A agent: the Agent Card at both well-known paths (public, cached) and
 * the JSON-RPC endpoint `POST /a2a`, which checks the bearer token (constant time; 401 with a
 * JSON-RPC error body), the Content-Type (-32005), the body size (413) and the JSON (-32700), then
 * hands the request to the handler and answers with JSON or SSE. Mount it before any body parser.
 *
 * @example
 * const app = express();
 * app.use(a2aRouter({ handler, internalToken: config.internalToken }));
 */
export function a2aRouter({
  handler,
  internalToken,
  bodyLimit = 1024 * 1024,
  keepAliveMs = 15_000,
  cardCacheControl = 'public, max-age=300',
}: A2ARouterOptions): Router {
  const router = Router();
  const tokenMatches = internalToken === undefined ? undefined : bearerTokenCheck(internalToken);

  const serveCard = function serveAgentCard(_req: Request, res: Response): void {
    res.setHeader('cache-control', cardCacheControl);
    res.json(handler.card);
  };
  for (const path of AGENT_CARD_PATHS) router.get(path, serveCard);

  router.post(A2A_ENDPOINT_PATH, async function serveJsonRpc(req: Request, res: Response) {
    if (tokenMatches !== undefined && !tokenMatches(req.get('authorization'))) {
      res.setHeader('www-authenticate', 'Bearer');
      sendJsonRpcError(
        res,
        401,
        new UnauthenticatedError('This agent needs Authorization: Bearer <internal token>.'),
      );
      return;
    }
    let body: unknown;
    if (req.body !== undefined) {
      // An earlier body parser already read it.
      body = req.body as unknown;
    } else {
      if (!isJsonContentType(req.get('content-type'))) {
        req.resume();
        sendJsonRpcError(
          res,
          200,
          new ContentTypeNotSupportedError(
            `The JSON-RPC endpoint takes Content-Type: application/json, not ${req.get('content-type') ?? 'none'}.`,
          ),
        );
        return;
      }
      let text: string;
      try {
        text = (await readBody(req, { limit: bodyLimit })).toString('utf8');
      } catch (error) {
        if (error instanceof AbortError) return;
        sendJsonRpcError(res, 413, error);
        return;
      }
      const parsed = safeParseJson({ text, schema: z.unknown() });
      if (!parsed.success) {
        // Valid JSON nested too deep is a bad request, not a parse error.
        const error =
          parsed.error instanceof ValidationError
            ? new InvalidParamsError(parsed.error.message)
            : new JsonRpcParseError(parsed.error.message);
        sendJsonRpcError(res, 200, error);
        return;
      }
      body = parsed.value;
    }
    const disconnect = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) disconnect.abort();
    });
    const result = await handler.handle(body, {
      version: req.get('a2a-version'),
      signal: disconnect.signal,
    });
    if (result.type === 'json') {
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      res.status(result.status).json(result.body);
      return;
    }
    await sendSse(res, result.events, { renderError: result.renderError, keepAliveMs });
  });

  return router;
}
