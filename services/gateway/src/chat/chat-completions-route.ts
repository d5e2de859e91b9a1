import type { IncomingMessage, ServerResponse } from 'node:http';
import { ServiceUnavailableError } from '@fleet/errors';
import type { A2AClient } from '@fleet/a2a/client';
import { readJsonBody } from '@fleet/http';
import type { SessionStore } from '@fleet/sessions';
import { getActiveSpan } from '@fleet/telemetry';
import {
  FLEET_MODELS,
  parseRoutingHeader,
  resolveRoute,
  type RouteClassifier,
  type RouteDecision,
} from '../routing';
import { ownPayloadLimit } from '../limits';
import { orchestrate, parsePlanApprovalHeader } from '../orchestration';
import { reason } from '../reasoning';
import type { RedisGate } from '../redis';
import { resumeSession } from '../sessions';
import type { UpstreamClient } from '../upstream';
import { assertAgentRequest } from './agent-request';
import { chatCompletionRequestSchema } from './chat-completion-request';
import { tracePassthrough } from './trace-passthrough';

/** What the chat completions handler needs. */
export interface ChatCompletionsOptions {
  /** Undefined in offline mode. */
  upstreamClient: UpstreamClient | undefined;
  /** The orchestrator over A2A; undefined when the gateway has no internal token to call it with. */
  orchestratorClient: A2AClient | undefined;
  /**
   * The reasoning agent over A2A (`X-Routing-Mode: reasoning`) and its base URL; undefined when the
   * gateway has no internal token to call it with.
   */
  reasoningAgent?: { client: A2AClient; url: string } | undefined;
  /** Sessions, for `X-Session-ID` (resume). */
  sessions: SessionStore;
  /**
   * The fleet's Redis connection: while it is down, routes that need it (orchestration, reasoning,
   * resumes) answer 503 with `Retry-After` before any work. @default always connected
   */
  redisGate?: RedisGate | undefined;
  /** Why there is no upstream (the 503 message in offline mode). */
  offlineReason: string;
  bodyLimit: number;
  /** Characters of message text an orchestration or reasoning request may carry. @default 262144 */
  agentTextLimit?: number | undefined;
  /** Chooses passthrough or orchestration for `X-Routing-Mode: auto`. */
  routeClassifier: RouteClassifier;
  /**
   * The upstream model a request naming a fleet model id (`fleet-auto`) is sent with when `auto`
   * chooses passthrough (`LLM_MODEL`). Undefined: the body is forwarded unchanged.
   */
  passthroughModel?: string | undefined;
}

function setRouteHeaders(res: ServerResponse, decision: RouteDecision): Record<string, string> {
  const headers: Record<string, string> = { 'x-routing-mode': decision.mode };
  if (decision.reason !== undefined) headers['x-routing-reason'] = decision.reason;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  return headers;
}

const RESUME_HEADERS = {
  'x-routing-mode': 'orchestration',
  'x-routing-reason': 'X-Session-ID: continuing an orchestrated session',
} as const;

/**
 * `POST /v1/chat/completions` after authentication: validates the request, decides the route
 * (docs/architecture.md §3) and, for passthrough, forwards the client's exact bytes to the upstream and
 * streams the answer back. With `X-Session-ID` it continues that session instead (the body must
 * still be a valid request, and the header wins over any route): its messages are ignored, except
 * that while the session waits for an answer to an agent's question the last user message is that
 * answer.
 * `X-Plan-Approval: required` asks the orchestrator to wait for a person's approval of the plan.
 * Throws typed errors; the caller renders them.
 */
export function createChatCompletionsHandler({
  upstreamClient,
  orchestratorClient,
  reasoningAgent,
  sessions,
  redisGate,
  offlineReason,
  bodyLimit,
  agentTextLimit,
  routeClassifier,
  passthroughModel,
}: ChatCompletionsOptions) {
  const needsRedis = (): void => redisGate?.assertConnected();
  // An agent's own body limit refusing a request the gateway accepted: the client hears the
  // gateway's limit (GATEWAY_BODY_LIMIT), never the internal one.
  const tooLargeFor = (service: string) => (error: unknown) =>
    ownPayloadLimit(error, {
      what: 'The conversation',
      service,
      limit: bodyLimit,
      limitVariable: 'GATEWAY_BODY_LIMIT',
      remedy: 'send fewer or shorter messages',
    });
  return async function chatCompletions(
    req: IncomingMessage,
    { res, requestId, tenant }: { res: ServerResponse; requestId: string; tenant: string },
  ): Promise<void> {
    // Headers are checked before the body is read: a bad value fails fast and cheap. On plain
    // passthrough these are three header reads; nothing here touches Redis.
    const headerMode = parseRoutingHeader(req.headers['x-routing-mode'] as string | undefined);
    const planApproval = parsePlanApprovalHeader(req.headers['x-plan-approval']);
    const resumeId = req.headers['x-session-id'] as string | undefined;
    const { raw, value: request } = await readJsonBody(req, {
      limit: bodyLimit,
      schema: chatCompletionRequestSchema,
    });
    if (resumeId !== undefined) {
      for (const [name, value] of Object.entries(RESUME_HEADERS)) res.setHeader(name, value);
      needsRedis();
      await resumeSession({
        store: sessions,
        client: orchestratorClient,
        sessionId: resumeId,
        tenant,
        requestId,
        request,
        res,
        responseHeaders: RESUME_HEADERS,
        span: getActiveSpan(),
      });
      return;
    }
    const requested = resolveRoute(headerMode, request);
    let decision: Exclude<RouteDecision, { mode: 'auto' }>;
    let body = raw;
    if (requested.mode !== 'auto') decision = requested;
    else {
      // The classifier picks the route (never reasoning); the headers name the route taken.
      const choice = await routeClassifier.classify({ tenant, messages: request.messages });
      decision = { mode: choice.route, reason: choice.reason };
      if (
        choice.route === 'passthrough' &&
        passthroughModel !== undefined &&
        FLEET_MODELS[request.model] !== undefined
      ) {
        body = Buffer.from(JSON.stringify({ ...request, model: passthroughModel }));
      }
    }
    const responseHeaders = setRouteHeaders(res, decision);

    if (decision.mode === 'orchestration') {
      // The client's mistakes are 400s here, before a session or an A2A call exists.
      assertAgentRequest(request, 'orchestration', agentTextLimit);
      if (orchestratorClient === undefined) {
        throw new ServiceUnavailableError(
          'Orchestration needs FLEET_INTERNAL_TOKEN, the token fleet services share; `pnpm fleet up` sets it.',
        );
      }
      needsRedis();
      await orchestrate({
        client: orchestratorClient,
        request,
        tenant,
        planApproval,
        res,
        responseHeaders,
        span: getActiveSpan(),
      }).catch((error: unknown) => {
        throw tooLargeFor('the orchestrator')(error);
      });
      return;
    }
    if (decision.mode === 'reasoning') {
      assertAgentRequest(request, 'reasoning', agentTextLimit);
      // The reasoning agent thinks with the upstream LLM: offline it cannot (docs/architecture.md §8).
      if (upstreamClient === undefined) {
        throw new ServiceUnavailableError(
          `X-Routing-Mode: reasoning needs an upstream LLM. ${offlineReason}`,
        );
      }
      if (reasoningAgent === undefined) {
        throw new ServiceUnavailableError(
          'Reasoning needs FLEET_INTERNAL_TOKEN, the token fleet services share; `pnpm fleet up` sets it.',
        );
      }
      needsRedis();
      await reason({
        client: reasoningAgent.client,
        agentUrl: reasoningAgent.url,
        request,
        tenant,
        res,
        responseHeaders,
        span: getActiveSpan(),
      }).catch((error: unknown) => {
        throw tooLargeFor('the reasoning agent')(error);
      });
      return;
    }
    if (upstreamClient === undefined) throw new ServiceUnavailableError(offlineReason);
    await upstreamClient.forwardChatCompletion({
      body,
      stream: request.stream === true,
      res,
      requestId,
      responseHeaders,
      observer: tracePassthrough({ span: getActiveSpan(), request, tenant }),
    });
  };
}
