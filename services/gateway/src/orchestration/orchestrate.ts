import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import {
  dataPart,
  type AgentSteering,
  type ResultReview,
  textPart,
  type HistoryMessage,
  type Message,
  type OrchestrateRequest,
  type Part,
  type StepUsage,
  type ToolPolicy,
} from '@fleet/a2a';
import type { A2AClient } from '@fleet/a2a/client';
import type { SessionStore } from '@fleet/sessions';
import {
  Attributes,
  SpanKind,
  setSessionAttributes,
  setSpanInput,
  type Span,
} from '@fleet/telemetry';
import type { ChatCompletionRequest } from '../chat/chat-completion-request';
import type { AnswerChannelFactory } from '../openai';
import { messageText } from '../chat/message-text';
import { resolveMemoryUser } from '../memory';
import { holdAttachLease, type HeldAttachLease } from '../sessions/hold-attach-lease';
import { answerRun, type AnswerRunOptions, type RunEventSource } from './answer-run';
import { followAfterCut } from './follow-after-cut';

/** Whether a person approves the plan before any agent runs (`X-Plan-Approval`). */
export type PlanApproval = OrchestrateRequest['planApproval'];

/** What the orchestrator does with a plan below its confidence threshold (`X-Low-Confidence`). */
export type LowConfidence = NonNullable<OrchestrateRequest['lowConfidence']>;

/** What one orchestrated request needs. */
export interface OrchestrateOptions {
  client: A2AClient;
  request: ChatCompletionRequest;
  tenant: string;
  /** `required` (`X-Plan-Approval`): a person approves the plan before any agent runs. @default 'none' */
  planApproval?: PlanApproval | undefined;
  /** `X-Low-Confidence`; undefined: the orchestrator's default (ORCHESTRATOR_LOW_CONFIDENCE). */
  lowConfidence?: LowConfidence | undefined;
  /**
   * `X-Result-Review` / `fleet_result_review`: `required` pauses the run after composing for a
   * person to review the answer. Undefined: not sent (no review).
   */
  resultReview?: ResultReview | undefined;
  /** The tenant's tool policy (GATEWAY_TOOL_PERMISSIONS): `fleet.toolPolicy`. Undefined: every tool. */
  toolPolicy?: ToolPolicy | undefined;
  /** `X-Fleet-Agents` / `fleet_agents`, checked: `fleet.steering`. Undefined: no steering. */
  steering?: AgentSteering | undefined;
  res: ServerResponse;
  /** Headers every answer carries (the route taken). */
  responseHeaders: Record<string, string>;
  /**
   * The files the request brings, as A2A file parts (`raw`, `filename`, `mediaType`): sent after
   * the text and the `{ fleet }` data part. @default none
   */
  attachments?: readonly Part[] | undefined;
  /** The gateway's root span, described for Phoenix's Sessions view. */
  span: Span | undefined;
  /**
   * The API the client called (the span is named after it) and how the answer is rendered for it.
   * @default the chat completions API: `/v1/chat/completions`, {@link chatAnswerChannel}
   */
  api?: { path: string; channel: AnswerChannelFactory } | undefined;
  /** Keep-alive comment interval while the run is quiet. @default 15000 */
  keepAliveMs?: number;
  /** Model calls the gateway made for the request before the run (`auto`'s `classifier`). */
  gatewaySteps?: readonly StepUsage[] | undefined;
  /** Gets the run's usage once it finished (see {@link AnswerRunOptions.onUsage}). */
  onUsage?: AnswerRunOptions['onUsage'];
  /**
   * The rest of a session's run from wherever it stands (`followSession`): when the orchestrator
   * running the new run dies or hands it over mid-run, the client's answer goes on from there
   * ({@link followAfterCut}). Undefined: such a cut ends the answer with an error that names the
   * session.
   */
  follow?: ((sessionId: string) => RunEventSource) | undefined;
  /**
   * The sessions, whose attach lease this request takes once the run names its session and
   * holds while it answers: a client continuing it with `X-Session-ID` meanwhile gets 409, as
   * when another resume streams it. Undefined: no lease is taken.
   */
  sessions?: SessionStore | undefined;
}

/** The request is the last user message; everything before it is history. */
export function splitConversation(messages: ChatCompletionRequest['messages']): {
  text: string;
  history: HistoryMessage[];
} {
  const lastUser = messages.map((message) => message.role).lastIndexOf('user');
  const text = lastUser === -1 ? '' : messageText(messages[lastUser]?.['content']);
  const history = messages
    .slice(0, lastUser === -1 ? messages.length : lastUser)
    .filter((message) => message.role !== 'function')
    .map((message) => ({
      role: message.role as HistoryMessage['role'],
      content: messageText(message['content']),
    }));
  return { text, history };
}

/**
 * Starts one run on the orchestrator over A2A and answers in OpenAI's shape ({@link answerRun}):
 * streamed as progress (`reasoning_content` + `fleet`) then the answer, or as one
 * `chat.completion` carrying the same `fleet` object. `X-Session-ID` names the run's session.
 * The run's model usage is reported as OpenAI's `usage` (and with `stream_options.include_usage`
 * in a last chunk), `gatewaySteps` included.
 *
 * @throws FleetError before anything was sent (orchestrator unreachable, failed run when not streaming).
 */
export async function orchestrate({
  client,
  request,
  tenant,
  attachments = [],
  planApproval = 'none',
  lowConfidence,
  resultReview,
  toolPolicy,
  steering,
  res,
  responseHeaders,
  span,
  keepAliveMs = 15_000,
  gatewaySteps,
  api,
  onUsage,
  follow,
  sessions,
}: OrchestrateOptions): Promise<void> {
  const { text, history } = splitConversation(request.messages);
  const input: OrchestrateRequest = {
    tenant,
    history,
    planApproval,
    ...(lowConfidence === undefined ? {} : { lowConfidence }),
    ...(resultReview === undefined ? {} : { resultReview }),
    ...(toolPolicy === undefined ? {} : { toolPolicy }),
    ...(steering === undefined ? {} : { steering }),
  };
  // Whose long-term memory the run reads and extends (docs/memory.md): the OpenAI `user` field,
  // else X-Fleet-User, else the tenant's default user. The tenant is always the API key's.
  const user = resolveMemoryUser({ bodyUser: request['user'], req: res.req });
  const message: Message = {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [textPart(text), dataPart({ fleet: { ...input, user } }), ...attachments],
  };
  if (span?.isRecording()) {
    span.updateName(`POST ${api?.path ?? '/v1/chat/completions'} (orchestration)`);
    span.setAttribute(Attributes.SPAN_KIND, SpanKind.CHAIN);
    setSessionAttributes(span, { userId: tenant });
    setSpanInput(span, text);
  }

  let attach: HeldAttachLease | undefined;
  const release = async (): Promise<void> => {
    await attach?.release();
  };
  const start: RunEventSource = (signal) => client.sendStreamingMessage({ message }, { signal });
  try {
    await answerRun({
      events: follow === undefined ? start : followAfterCut(start, follow),
      orchestratorUrl: client.url,
      model: request.model,
      stream: request.stream === true,
      includeUsage: request.stream_options?.include_usage === true,
      gatewaySteps,
      res,
      responseHeaders,
      span,
      keepAliveMs,
      channel: api?.channel,
      onUsage,
      onSession: async (sessionId) => {
        if (sessions === undefined || attach !== undefined) return;
        // The starting request answers whatever happens: a lease it cannot take (Redis gone,
        // or a client that guessed the id first) costs the 409 guarantee, never the answer.
        attach = await holdAttachLease(sessions, {
          sessionId,
          owner: `gateway:start:${randomUUID()}`,
        }).catch(() => undefined);
      },
      beforeEnd: release,
    });
  } finally {
    await release();
  }
}
