import type { IncomingMessage, ServerResponse } from 'node:http';
import { BadRequestError } from '@fleet/errors';
import { readJsonBody, readSingleHeader } from '@fleet/http';
import { requestSpan, withRequestContext } from '@fleet/telemetry';
import {
  messageText,
  RESUME_HEADERS,
  routeRequest,
  type ChatCompletionRequest,
  type ChatCompletionsOptions,
} from '../chat';
import {
  joinResultReview,
  parseLowConfidenceHeader,
  parsePlanApprovalHeader,
  parseResultReviewField,
  parseResultReviewHeader,
  RESULT_REVIEW_FIELD,
  RESULT_REVIEW_HEADER,
} from '../orchestration';
import {
  FLEET_AGENTS_FIELD,
  FLEET_AGENTS_HEADER,
  joinSteering,
  parseFleetAgentsField,
  parseFleetAgentsHeader,
} from '../steering';
import { parseRoutingHeader } from '../routing';
import { resumeSession } from '../sessions';
import { responsesChannel } from './responses-channel';
import {
  assertStatelessAgentRequest,
  responsesAttachments,
  responsesMessages,
  responsesRequestSchema,
  routableResponsesRequest,
  type ResponsesRequest,
} from './responses-request';
import { traceResponsesPassthrough } from './trace-responses-passthrough';
import { combineObservers, NO_REQUEST_LIMITS, type RequestLimits } from '../tenant-limits';

const RESPONSES_PATH = '/v1/responses';

/**
 * A Responses request as the chat completion the agent routes take: its messages
 * ({@link responsesMessages}, strict; a user message with text required), `model`, `stream` and
 * `user`, and usage on streams (the Responses API always reports it).
 */
function asAgentRequest(
  request: ResponsesRequest,
  mode: 'orchestration' | 'reasoning',
): ChatCompletionRequest {
  assertStatelessAgentRequest(request, mode);
  const messages = responsesMessages(request, { strict: true });
  const lastUser = messages.findLast((message) => message.role === 'user');
  // Named here as `input`: the chat checks that follow would name `messages`, which this API lacks.
  if (lastUser === undefined || messageText(lastUser['content']).trim() === '') {
    throw new BadRequestError(
      `input must contain a user message with text: it is the request the agents work on (X-Routing-Mode: ${mode}).`,
      { param: 'input' },
    );
  }
  return {
    model: request.model,
    messages,
    stream: request.stream ?? null,
    stream_options: { include_usage: true },
    ...(request.user === undefined ? {} : { user: request.user }),
  };
}

/**
 * `POST /v1/responses` after authentication: the OpenAI Responses API on the same routes as chat
 * completions (docs/architecture.md §3). Passthrough forwards the client's exact bytes (every
 * field, `previous_response_id`, `store`, `conversation` included) and streams the upstream's
 * events back as they come; orchestration and reasoning answer in the Responses shape
 * ({@link responsesChannel}) and refuse OpenAI's stored state ({@link assertStatelessAgentRequest});
 * `X-Session-ID` follows an orchestrated session as chat completions do. Throws typed errors; the
 * caller renders them.
 */
export function createResponsesHandler(options: ChatCompletionsOptions) {
  const { orchestratorClient, sessions, redisGate, bodyLimit } = options;
  return async function responses(
    req: IncomingMessage,
    {
      res,
      requestId,
      tenant,
      limits = NO_REQUEST_LIMITS,
    }: { res: ServerResponse; requestId: string; tenant: string; limits?: RequestLimits },
  ): Promise<void> {
    const headerMode = parseRoutingHeader(readSingleHeader(req, 'X-Routing-Mode'));
    const planApproval = parsePlanApprovalHeader(readSingleHeader(req, 'X-Plan-Approval'));
    const lowConfidence = parseLowConfidenceHeader(readSingleHeader(req, 'X-Low-Confidence'));
    const headerSteering = parseFleetAgentsHeader(readSingleHeader(req, FLEET_AGENTS_HEADER));
    const headerReview = parseResultReviewHeader(readSingleHeader(req, RESULT_REVIEW_HEADER));
    const resumeId = readSingleHeader(req, 'X-Session-ID');
    const { raw, value: request } = await readJsonBody(req, {
      limit: bodyLimit,
      schema: responsesRequestSchema,
    });
    const api = { path: RESPONSES_PATH, channel: responsesChannel(request.model) };
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
          request: { ...request, messages: responsesMessages(request, { strict: false }) },
          res,
          responseHeaders: RESUME_HEADERS,
          span: requestSpan(req),
          api,
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
      routable: routableResponsesRequest(request),
      messages: () => responsesMessages(request, { strict: false }),
      agentRequest: (mode) => asAgentRequest(request, mode),
      attachments: () => responsesAttachments(request),
      body: { value: request, raw },
      tenant,
      res,
      api,
      limits,
      passthrough: (upstream, { body, responseHeaders }) =>
        upstream.forward({
          endpoint: 'responses',
          body,
          stream: request.stream === true,
          res,
          requestId,
          responseHeaders,
          observer: combineObservers(
            traceResponsesPassthrough({ span: requestSpan(req), request, tenant }),
            limits.usageObserver(),
          ),
        }),
    });
  };
}
