import type { IncomingMessage, ServerResponse } from 'node:http';
import type { A2AClient } from '@fleet/a2a/client';
import { readJsonBody, readSingleHeader } from '@fleet/http';
import type { SessionStore } from '@fleet/sessions';
import { requestSpan, withRequestContext } from '@fleet/telemetry';
import {
  FLEET_AGENTS_FIELD,
  FLEET_AGENTS_HEADER,
  joinSteering,
  parseFleetAgentsField,
  parseFleetAgentsHeader,
} from '../steering';
import { parseRoutingHeader, type RouteClassifier } from '../routing';
import {
  joinResultReview,
  parseLowConfidenceHeader,
  parsePlanApprovalHeader,
  parseResultReviewField,
  parseResultReviewHeader,
  RESULT_REVIEW_FIELD,
  RESULT_REVIEW_HEADER,
} from '../orchestration';
import type { RedisGate } from '../redis';
import { resumeSession } from '../sessions';
import type { UpstreamClient } from '../upstream';
import { combineObservers, NO_REQUEST_LIMITS, type RequestLimits } from '../tenant-limits';
import type { ToolPermissions } from '../tool-permissions';
import type { RunFileStore } from '@fleet/a2a';
import type { DocumentsClient } from '../documents/documents-client';
import type { AgentsClient } from '../agents/agents-client';
import type { AttachmentLimits } from '../files/attachments';
import { chatAttachments } from './agent-request';
import { chatCompletionRequestSchema } from './chat-completion-request';
import { RESUME_HEADERS, routeRequest, type RequestApi } from './route-request';
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
  /**
   * The orchestrator's agent listing: the names of `X-Fleet-Agents` / `fleet_agents` are checked
   * against it. Undefined: they are sent unchecked.
   */
  agents?: AgentsClient | undefined;
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
  /**
   * Each tenant's tool policy (GATEWAY_TOOL_PERMISSIONS), sent with every orchestrated, resumed and
   * reasoning request. @default every tool permitted
   */
  toolPermissions?: ToolPermissions | undefined;
  /** The fleet's file store: attachments sent by run file id (`file-…`). */
  files?: RunFileStore | undefined;
  /** The tenant's documents: attachments sent by document id. */
  documents?: DocumentsClient | undefined;
  /**
   * How many attachments a request may bring and how large each may be
   * (`GATEWAY_MAX_ATTACHMENTS`, `GATEWAY_MAX_ATTACHMENT_BYTES`). @default 8 of 4 MiB
   */
  attachmentLimits?: AttachmentLimits | undefined;
}

const CHAT_API: RequestApi = { path: '/v1/chat/completions' };

/**
 * `POST /v1/chat/completions` after authentication: validates the request, decides the route
 * (docs/architecture.md §3) and, for passthrough, forwards the client's exact bytes to the upstream and
 * streams the answer back. With `X-Session-ID` it continues that session instead (the body must
 * still be a valid request, and the header wins over any route): its messages are ignored, except
 * that while the session waits for an answer to an agent's question the last user message is that
 * answer.
 * `X-Plan-Approval: required` asks the orchestrator to wait for a person's approval of the plan;
 * `X-Result-Review: required` (or the body field `fleet_result_review`) for a person's review of
 * the answer before it is sent.
 * Throws typed errors; the caller renders them.
 */
export function createChatCompletionsHandler(options: ChatCompletionsOptions) {
  const { orchestratorClient, sessions, redisGate, bodyLimit } = options;
  return async function chatCompletions(
    req: IncomingMessage,
    {
      res,
      requestId,
      tenant,
      limits = NO_REQUEST_LIMITS,
    }: { res: ServerResponse; requestId: string; tenant: string; limits?: RequestLimits },
  ): Promise<void> {
    // Headers are checked before the body is read: a bad value fails fast and cheap. On plain
    // passthrough these are three header reads; nothing here touches Redis.
    const headerMode = parseRoutingHeader(readSingleHeader(req, 'X-Routing-Mode'));
    const planApproval = parsePlanApprovalHeader(readSingleHeader(req, 'X-Plan-Approval'));
    const lowConfidence = parseLowConfidenceHeader(readSingleHeader(req, 'X-Low-Confidence'));
    const headerSteering = parseFleetAgentsHeader(readSingleHeader(req, FLEET_AGENTS_HEADER));
    const headerReview = parseResultReviewHeader(readSingleHeader(req, RESULT_REVIEW_HEADER));
    const resumeId = readSingleHeader(req, 'X-Session-ID');
    const { raw, value: request } = await readJsonBody(req, {
      limit: bodyLimit,
      schema: chatCompletionRequestSchema,
    });
    if (resumeId !== undefined) {
      for (const [name, value] of Object.entries(RESUME_HEADERS)) res.setHeader(name, value);
      redisGate?.assertConnected();
      await withRequestContext(req, () =>
        resumeSession({
          store: sessions,
          client: orchestratorClient,
          sessionId: resumeId,
          tenant,
          requestId,
          request,
          res,
          responseHeaders: RESUME_HEADERS,
          span: requestSpan(req),
          toolPolicy: options.toolPermissions?.policyFor(tenant),
        }),
      );
      return;
    }
    // Agent steering applies to orchestrated runs (a resume keeps its session's).
    const steering = joinSteering(
      headerSteering,
      parseFleetAgentsField(request[FLEET_AGENTS_FIELD]),
    );
    // So does the result review (a resume keeps its session's).
    const resultReview = joinResultReview(
      headerReview,
      parseResultReviewField(request[RESULT_REVIEW_FIELD]),
    );
    await routeRequest(options, {
      headerMode,
      steering,
      planApproval,
      lowConfidence,
      resultReview,
      routable: request,
      messages: () => request.messages,
      agentRequest: () => request,
      attachments: () => chatAttachments(request),
      body: { value: request, raw },
      tenant,
      res,
      api: CHAT_API,
      limits,
      passthrough: (upstream, { body, responseHeaders }) =>
        upstream.forward({
          endpoint: 'chat/completions',
          body,
          stream: request.stream === true,
          res,
          requestId,
          responseHeaders,
          observer: combineObservers(
            tracePassthrough({ span: requestSpan(req), request, tenant }),
            limits.usageObserver(),
          ),
        }),
    });
  };
}
