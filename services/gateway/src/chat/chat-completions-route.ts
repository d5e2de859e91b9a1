import type { IncomingMessage, ServerResponse } from 'node:http';
import { stepUsage, type StepUsage } from '@fleet/a2a';
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
import { orchestrate, parsePlanApprovalHeader, type PlanApproval } from '../orchestration';
import { reason } from '../reasoning';
import type { RedisGate } from '../redis';
import { resumeSession } from '../sessions';
import type { UpstreamClient } from '../upstream';
import { assertAgentRequest } from './agent-request';
import { chatCompletionRequestSchema, type ChatCompletionRequest } from './chat-completion-request';
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

/** What a route answers: the validated request and the client's response. */
interface RouteCall {
  request: ChatCompletionRequest;
  tenant: string;
  res: ServerResponse;
  responseHeaders: Record<string, string>;
  /** Model calls made before the route ran (`auto`'s classifier): part of an orchestrated run's usage. */
  gatewaySteps?: readonly StepUsage[] | undefined;
}

/**
 * An agent's own body limit refusing a request the gateway accepted: the client hears the
 * gateway's limit (GATEWAY_BODY_LIMIT), never the internal one.
 */
function asGatewayLimit(
  error: unknown,
  { service, bodyLimit }: { service: string; bodyLimit: number },
): unknown {
  return ownPayloadLimit(error, {
    what: 'The conversation',
    service,
    limit: bodyLimit,
    limitVariable: 'GATEWAY_BODY_LIMIT',
    remedy: 'send fewer or shorter messages',
  });
}

/**
 * `auto`: the classifier's route (never reasoning) and the body passthrough forwards — a fleet
 * model id sent to passthrough is swapped for `passthroughModel`.
 */
async function classifyAuto(
  { routeClassifier, passthroughModel }: ChatCompletionsOptions,
  { request, raw, tenant }: { request: ChatCompletionRequest; raw: Buffer; tenant: string },
): Promise<{
  decision: Exclude<RouteDecision, { mode: 'auto' }>;
  body: Buffer;
  gatewaySteps: StepUsage[];
}> {
  const choice = await routeClassifier.classify({ tenant, messages: request.messages });
  // The classifier's call, when this request made one, is the run's step `classifier`. Passthrough
  // answers with the upstream's own usage, untouched: it is that call's, not the request's sum.
  const gatewaySteps =
    choice.usage === undefined ? [] : [stepUsage({ step: 'classifier', usage: choice.usage })];
  const swapModel =
    choice.route === 'passthrough' &&
    passthroughModel !== undefined &&
    FLEET_MODELS[request.model] !== undefined;
  return {
    decision: { mode: choice.route, reason: choice.reason },
    body: swapModel ? Buffer.from(JSON.stringify({ ...request, model: passthroughModel })) : raw,
    gatewaySteps,
  };
}

async function routeToOrchestrator(
  options: ChatCompletionsOptions,
  { planApproval, ...call }: RouteCall & { planApproval: PlanApproval | undefined },
): Promise<void> {
  const { orchestratorClient, redisGate, agentTextLimit, bodyLimit } = options;
  // The client's mistakes are 400s here, before a session or an A2A call exists.
  assertAgentRequest(call.request, 'orchestration', agentTextLimit);
  if (orchestratorClient === undefined) {
    throw new ServiceUnavailableError(
      'Orchestration needs FLEET_INTERNAL_TOKEN, the token fleet services share; `pnpm fleet up` sets it.',
    );
  }
  redisGate?.assertConnected();
  await orchestrate({
    client: orchestratorClient,
    ...call,
    planApproval,
    span: getActiveSpan(),
  }).catch((error: unknown) => {
    throw asGatewayLimit(error, { service: 'the orchestrator', bodyLimit });
  });
}

async function routeToReasoning(options: ChatCompletionsOptions, call: RouteCall): Promise<void> {
  const { upstreamClient, reasoningAgent, offlineReason, redisGate, agentTextLimit, bodyLimit } =
    options;
  assertAgentRequest(call.request, 'reasoning', agentTextLimit);
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
  redisGate?.assertConnected();
  await reason({
    client: reasoningAgent.client,
    agentUrl: reasoningAgent.url,
    ...call,
    span: getActiveSpan(),
  }).catch((error: unknown) => {
    throw asGatewayLimit(error, { service: 'the reasoning agent', bodyLimit });
  });
}

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
export function createChatCompletionsHandler(options: ChatCompletionsOptions) {
  const { upstreamClient, orchestratorClient, sessions, redisGate, offlineReason, bodyLimit } =
    options;
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
      redisGate?.assertConnected();
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
    // The classifier picks the route for `auto`; the headers name the route taken.
    const { decision, body, gatewaySteps } =
      requested.mode === 'auto'
        ? await classifyAuto(options, { request, raw, tenant })
        : { decision: requested, body: raw, gatewaySteps: [] };
    const call: RouteCall = {
      request,
      tenant,
      res,
      responseHeaders: setRouteHeaders(res, decision),
      gatewaySteps,
    };
    switch (decision.mode) {
      case 'orchestration':
        await routeToOrchestrator(options, { ...call, planApproval });
        return;
      case 'reasoning':
        await routeToReasoning(options, call);
        return;
      case 'passthrough':
        if (upstreamClient === undefined) throw new ServiceUnavailableError(offlineReason);
        await upstreamClient.forwardChatCompletion({
          body,
          stream: request.stream === true,
          res,
          requestId,
          responseHeaders: call.responseHeaders,
          observer: tracePassthrough({ span: getActiveSpan(), request, tenant }),
        });
    }
  };
}
