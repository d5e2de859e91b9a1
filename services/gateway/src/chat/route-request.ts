import type { ServerResponse } from 'node:http';
import { stepUsage, type StepUsage } from '@fleet/a2a';
import { ServiceUnavailableError } from '@fleet/errors';
import { getActiveSpan, withRequestContext } from '@fleet/telemetry';
import {
  FLEET_MODELS,
  resolveRoute,
  type ClassifyRouteInput,
  type RoutableRequest,
  type RouteDecision,
  type RoutingMode,
} from '../routing';
import { ownPayloadLimit } from '../limits';
import {
  orchestrate,
  RESULT_REVIEW_FIELD,
  type LowConfidence,
  type PlanApproval,
} from '../orchestration';
import type { AnswerChannelFactory } from '../openai';
import { reason } from '../reasoning';
import { followSession } from '../sessions';
import { NO_REQUEST_LIMITS, type RequestLimits } from '../tenant-limits';
import type { UpstreamClient } from '../upstream';
import {
  DEFAULT_MAX_ATTACHMENT_BYTES,
  DEFAULT_MAX_ATTACHMENTS,
  resolveAttachments,
  type AttachmentRef,
} from '../files/attachments';
import type { AgentSteering, Part, ResultReview } from '@fleet/a2a';
import { assertKnownSteering, FLEET_AGENTS_FIELD } from '../steering';
import { assertAgentRequest } from './agent-request';
import type { ChatCompletionsOptions } from './chat-completions-route';
import type { ChatCompletionRequest } from './chat-completion-request';

/** The API a request came in on, for the agent routes: the span's name and the answer's shape. */
export interface RequestApi {
  /** `/v1/chat/completions` or `/v1/responses`. */
  path: string;
  /** How the agent routes' answers are rendered. @default chatAnswerChannel */
  channel?: AnswerChannelFactory | undefined;
}

/** One request to route, whichever API it came in on (chat completions or Responses). */
export interface RoutedRequest {
  /** `X-Routing-Mode`, parsed. */
  headerMode: RoutingMode | undefined;
  /** `X-Plan-Approval`, parsed. */
  planApproval: PlanApproval | undefined;
  /** `X-Low-Confidence`, parsed (undefined: the orchestrator's default). */
  lowConfidence?: LowConfidence | undefined;
  /**
   * `X-Result-Review` and the body field `fleet_result_review`, parsed and joined: sent with an
   * orchestrated run. Undefined: neither was given (no review).
   */
  resultReview?: ResultReview | undefined;
  /**
   * `X-Fleet-Agents` and the body field `fleet_agents`, parsed and joined: checked against the
   * orchestrator's agents and sent with an orchestrated run. Undefined: no steering.
   */
  steering?: AgentSteering | undefined;
  /** What routing reads: the model, and `tools` or a structured output format. */
  routable: RoutableRequest;
  /** The conversation the `auto` classifier reads (called only for `auto`). */
  messages: () => ClassifyRouteInput['messages'];
  /**
   * The request as a chat completion for the agent routes (called only when one is taken; may
   * throw a 400 for what they cannot take).
   */
  agentRequest: (mode: 'orchestration' | 'reasoning') => ChatCompletionRequest;
  /**
   * The files the last user message brings (chat's `image_url` and `file` parts, Responses'
   * `input_image` and `input_file`), named by where they are; called only on an agent route,
   * after {@link agentRequest}. May throw a 400 naming the part. Undefined: none.
   */
  attachments?: (() => AttachmentRef[]) | undefined;
  /** The body as parsed (unknown fields kept) and as sent. */
  body: { value: Record<string, unknown>; raw: Buffer };
  tenant: string;
  res: ServerResponse;
  api: RequestApi;
  /**
   * The tenant's limits for this request (the run slot a new orchestrated run holds, the tokens
   * the agent routes report). @default nothing limited
   */
  limits?: RequestLimits | undefined;
  /** Forwards `body` (the client's bytes, or with the model swapped by `auto`) to the upstream. */
  passthrough: (
    upstream: UpstreamClient,
    forward: { body: Buffer; responseHeaders: Record<string, string> },
  ) => Promise<void>;
}

/** The route headers of a request that continues a session (`X-Session-ID`). */
export const RESUME_HEADERS = {
  'x-routing-mode': 'orchestration',
  'x-routing-reason': 'X-Session-ID: continuing an orchestrated session',
} as const;

function setRouteHeaders(res: ServerResponse, decision: RouteDecision): Record<string, string> {
  const headers: Record<string, string> = { 'x-routing-mode': decision.mode };
  if (decision.reason !== undefined) headers['x-routing-reason'] = decision.reason;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  return headers;
}

/** What an agent route answers: the request as a chat completion and the client's response. */
interface AgentCall {
  request: ChatCompletionRequest;
  /** What the last user message brings, not yet read. */
  attachmentRefs: AttachmentRef[];
  tenant: string;
  res: ServerResponse;
  responseHeaders: Record<string, string>;
  api: RequestApi;
  limits: RequestLimits;
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
  { routable, messages, body, tenant }: RoutedRequest,
): Promise<{
  decision: Exclude<RouteDecision, { mode: 'auto' }>;
  body: Buffer;
  gatewaySteps: StepUsage[];
}> {
  const choice = await routeClassifier.classify({ tenant, messages: messages() });
  // The classifier's call, when this request made one, is the run's step `classifier`. Passthrough
  // answers with the upstream's own usage, untouched: it is that call's, not the request's sum.
  const gatewaySteps =
    choice.usage === undefined ? [] : [stepUsage({ step: 'classifier', usage: choice.usage })];
  const swapModel =
    choice.route === 'passthrough' &&
    passthroughModel !== undefined &&
    FLEET_MODELS[routable.model] !== undefined;
  return {
    decision: { mode: choice.route, reason: choice.reason },
    body: swapModel
      ? Buffer.from(JSON.stringify({ ...body.value, model: passthroughModel }))
      : body.raw,
    gatewaySteps,
  };
}

/** The attachments' bytes as A2A file parts (none: no call to any store). */
async function readAttachments(
  options: ChatCompletionsOptions,
  call: Pick<AgentCall, 'attachmentRefs' | 'tenant'>,
): Promise<Part[]> {
  if (call.attachmentRefs.length === 0) return [];
  return resolveAttachments(call.attachmentRefs, {
    tenant: call.tenant,
    files: options.files,
    documents: options.documents,
    limits: {
      maxAttachments: options.attachmentLimits?.maxAttachments ?? DEFAULT_MAX_ATTACHMENTS,
      maxAttachmentBytes:
        options.attachmentLimits?.maxAttachmentBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES,
    },
    bodyLimit: options.bodyLimit,
  });
}

function apiOption(api: RequestApi) {
  return api.channel === undefined ? undefined : { path: api.path, channel: api.channel };
}

async function routeToOrchestrator(
  options: ChatCompletionsOptions,
  {
    planApproval,
    lowConfidence,
    resultReview,
    steering,
    api,
    gatewaySteps,
    limits,
    attachmentRefs,
    ...call
  }: AgentCall & {
    planApproval: PlanApproval | undefined;
    lowConfidence: LowConfidence | undefined;
    resultReview: ResultReview | undefined;
    steering: AgentSteering | undefined;
    gatewaySteps: StepUsage[];
  },
): Promise<void> {
  const { orchestratorClient, sessions, redisGate, agentTextLimit, bodyLimit } = options;
  // The client's mistakes are 400s here, before a session or an A2A call exists.
  assertAgentRequest(call.request, 'orchestration', agentTextLimit);
  if (orchestratorClient === undefined) {
    throw new ServiceUnavailableError(
      'Orchestration needs FLEET_INTERNAL_TOKEN, the token fleet services share; `pnpm fleet up` sets it.',
    );
  }
  redisGate?.assertConnected();
  // An agent or skill the orchestrator does not know is the client's mistake: a 400 naming it.
  if (steering !== undefined && options.agents !== undefined) {
    assertKnownSteering(steering, await options.agents.list());
  }
  const attachments = await readAttachments(options, { attachmentRefs, tenant: call.tenant });
  // Checked once, as the run starts: a run that started is never cut by a limit.
  await limits.holdRunSlot();
  const toolPolicy = options.toolPermissions?.policyFor(call.tenant);
  await orchestrate({
    client: orchestratorClient,
    ...call,
    attachments,
    planApproval,
    lowConfidence,
    resultReview,
    toolPolicy,
    steering,
    gatewaySteps,
    follow: (sessionId) =>
      followSession({ store: sessions, client: orchestratorClient, sessionId, toolPolicy }),
    onUsage: (usage) => limits.recordTokens(usage?.totalTokens),
    span: getActiveSpan(),
    api: apiOption(api),
    sessions,
  }).catch((error: unknown) => {
    throw asGatewayLimit(error, { service: 'the orchestrator', bodyLimit });
  });
}

async function routeToReasoning(
  options: ChatCompletionsOptions,
  { api, limits, attachmentRefs, ...call }: AgentCall,
): Promise<void> {
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
  const attachments = await readAttachments(options, { attachmentRefs, tenant: call.tenant });
  await reason({
    client: reasoningAgent.client,
    agentUrl: reasoningAgent.url,
    ...call,
    attachments,
    toolPolicy: options.toolPermissions?.policyFor(call.tenant),
    onUsage: (usage) => limits.recordTokens(usage?.total_tokens),
    span: getActiveSpan(),
    api: apiOption(api),
  }).catch((error: unknown) => {
    throw asGatewayLimit(error, { service: 'the reasoning agent', bodyLimit });
  });
}

/** The fleet's own body fields, which an upstream would refuse as unknown parameters. */
const FLEET_FIELDS = [FLEET_AGENTS_FIELD, RESULT_REVIEW_FIELD] as const;

/**
 * The body passthrough forwards without the fleet's own fields (`fleet_agents`,
 * `fleet_result_review`: the upstream would refuse an unknown parameter); a body without them is
 * forwarded as it is.
 */
function withoutFleetFields(body: Buffer, parsed: RoutedRequest['body']): Buffer {
  if (!FLEET_FIELDS.some((field) => field in parsed.value)) return body;
  const value = body === parsed.raw ? parsed.value : (JSON.parse(body.toString('utf8')) as object);
  const rest: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const field of FLEET_FIELDS) delete rest[field];
  return Buffer.from(JSON.stringify(rest));
}

/**
 * Decides a request's route (docs/architecture.md §3: the header, a fleet model id, `auto`'s
 * classifier; `tools` or a structured output format always pass through), names it in the
 * response headers and answers: passthrough forwards the body, orchestration and reasoning get the
 * request as a chat completion and answer through the API's channel. Shared by
 * `/v1/chat/completions` and `/v1/responses`. Throws typed errors; the caller renders them.
 */
export async function routeRequest(
  options: ChatCompletionsOptions,
  routed: RoutedRequest,
): Promise<void> {
  const requested = resolveRoute(routed.headerMode, routed.routable);
  // Passthrough carries the request's trace context explicitly (the upstream call's
  // `traceparent`, the span it describes); the classifier and the agent routes start child spans,
  // set baggage and call over A2A inside it (docs/tracing.md §7).
  const request = routed.res.req;
  // The classifier picks the route for `auto`; the headers name the route taken.
  const { decision, body, gatewaySteps } =
    requested.mode === 'auto'
      ? await withRequestContext(request, () => classifyAuto(options, routed))
      : { decision: requested, body: routed.body.raw, gatewaySteps: [] };
  const responseHeaders = setRouteHeaders(routed.res, decision);
  if (decision.mode === 'passthrough') {
    if (options.upstreamClient === undefined) {
      throw new ServiceUnavailableError(options.offlineReason);
    }
    await routed.passthrough(options.upstreamClient, {
      body: withoutFleetFields(body, routed.body),
      responseHeaders,
    });
    return;
  }
  const agentRequest = routed.agentRequest(decision.mode);
  const call: AgentCall = {
    request: agentRequest,
    attachmentRefs: routed.attachments?.() ?? [],
    tenant: routed.tenant,
    res: routed.res,
    responseHeaders,
    api: routed.api,
    limits: routed.limits ?? NO_REQUEST_LIMITS,
  };
  if (decision.mode === 'orchestration') {
    await withRequestContext(request, () =>
      routeToOrchestrator(options, {
        ...call,
        planApproval: routed.planApproval,
        lowConfidence: routed.lowConfidence,
        resultReview: routed.resultReview,
        steering: routed.steering,
        gatewaySteps,
      }),
    );
  } else {
    await withRequestContext(request, () => routeToReasoning(options, call));
  }
}
