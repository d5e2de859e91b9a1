import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { ToolPolicy } from '@fleet/a2a';
import type { A2AClient } from '@fleet/a2a/client';
import { BadRequestError, ConflictError, FleetError, ServiceUnavailableError } from '@fleet/errors';
import { addLogFields } from '@fleet/http';
import {
  isActiveStatus,
  isAnswered,
  type Approval,
  type Session,
  type SessionStore,
} from '@fleet/sessions';
import {
  Attributes,
  SpanKind,
  setSessionAttributes,
  setSpanInput,
  type Span,
} from '@fleet/telemetry';
import { messageText } from '../chat/message-text';
import type { AnswerChannelFactory } from '../openai';
import { answerRun } from '../orchestration';
import {
  answerableInput,
  answerTextSchema,
  MAX_ANSWER_CHARS,
  oldestAnswerableInput,
} from './answer-input';
import { ATTACH_WAIT_MS, holdAttachLease } from './hold-attach-lease';
import { ENDED_STATUSES } from './resume-in-background';
import { followSession, storedAnswerEvents } from './session-events';

/** What one resumed request (`X-Session-ID`) needs. */
export interface ResumeSessionOptions {
  store: SessionStore;
  /** The orchestrator; undefined without FLEET_INTERNAL_TOKEN (only completed sessions answer). */
  client: A2AClient | undefined;
  /** The `X-Session-ID` header, as sent. */
  sessionId: string;
  tenant: string;
  /** This request's id: the attach lease's owner. */
  requestId: string;
  /**
   * The request's `model`, `stream` and `stream_options.include_usage`, and its `messages`: the
   * last user message answers the session's oldest pending question, if one waits; otherwise they
   * are ignored.
   */
  request: {
    model: string;
    stream?: boolean | null | undefined;
    stream_options?: { include_usage?: boolean | null | undefined } | null | undefined;
    messages?: readonly { role: string; content?: unknown }[] | undefined;
  };
  res: ServerResponse;
  /** Headers every answer carries (the route taken). */
  responseHeaders: Record<string, string>;
  span: Span | undefined;
  /** Keep-alive comment interval while the run is quiet. @default 15000 */
  keepAliveMs?: number;
  /** See {@link followSession}. @default 5000 */
  leaseCheckMs?: number;
  /** The tenant's tool policy (GATEWAY_TOOL_PERMISSIONS), sent when the run is resumed. */
  toolPolicy?: ToolPolicy | undefined;
  /**
   * The API the client called (the span is named after it) and how the answer is rendered for it.
   * @default the chat completions API
   */
  api?: { path: string; channel: AnswerChannelFactory } | undefined;
  /**
   * Which question the last user message answers: `oldest` the session's oldest pending one;
   * `{ inputId }` that one only, while it is still pending (answered elsewhere meanwhile, the
   * message answers nothing, never a later question); `none` nothing (the session is only
   * followed).
   * @default 'oldest'
   */
  answers?: QuestionAnswered | undefined;
}

/** Which question a resume's message answers ({@link ResumeSessionOptions.answers}). */
export type QuestionAnswered = 'oldest' | { inputId: string } | 'none';

/** The pending question the resume's message answers, if any. */
function questionToAnswer(session: Session, answers: QuestionAnswered): Approval | undefined {
  if (answers === 'none') return undefined;
  if (answers === 'oldest') return oldestAnswerableInput(session);
  return answerableInput(session, answers.inputId);
}

/** Session ids the store creates are UUIDs; anything far from an id is refused before Redis. */
const SESSION_ID_PATTERN = /^[\w.:-]{1,128}$/;

/**
 * The text of the request's last user message as the answer to a question.
 * @throws BadRequestError (400, param `messages`) when it is empty or too long
 */
function chatAnswer(
  messages: ResumeSessionOptions['request']['messages'],
  question: { id: string },
): string {
  const last = [...(messages ?? [])].reverse().find((message) => message.role === 'user');
  const parsed = answerTextSchema.safeParse(messageText(last?.content));
  if (parsed.success) return parsed.data;
  const why =
    parsed.error.issues[0]?.code === 'too_big'
      ? `must be at most ${MAX_ANSWER_CHARS} characters`
      : 'must not be empty';
  throw new BadRequestError(
    `The session waits for an answer to question ${question.id}: the last user message is the answer and ${why}.`,
    { param: 'messages', details: { inputId: question.id } },
  );
}

/**
 * Records the request's last user message as the answer to the session's oldest pending question,
 * when one waits. A question answered (or expired) meanwhile is no reason to fail the resume: the
 * 409 is swallowed and the session streams as it stands.
 */
async function answerPendingQuestion(
  store: SessionStore,
  session: Session,
  {
    tenant,
    messages,
    res,
    answers,
  }: {
    tenant: string;
    messages: ResumeSessionOptions['request']['messages'];
    res: ServerResponse;
    answers: QuestionAnswered;
  },
): Promise<void> {
  const question = questionToAnswer(session, answers);
  if (question === undefined) return;
  const text = chatAnswer(messages, question);
  addLogFields(res, { inputId: question.id });
  try {
    await store.answerInput({ sessionId: session.id, inputId: question.id, tenant, text });
  } catch (error) {
    if (!(FleetError.isInstance(error) && error.status === 409)) throw error;
  }
}

/**
 * Continues a session (`POST /v1/chat/completions` with `X-Session-ID`, docs/architecture.md §3, §6)
 * and answers exactly like a new orchestrated run: the stored answer if it has completed, else the
 * rest of its run ({@link followSession}). One client at a time streams a session: the request
 * holds the session's attach lease (renewed while it streams, released when the response ends).
 *
 * When the session waits for an answer to a question an agent asked, the request's last user
 * message is the answer to the oldest pending one (recorded before the run continues), unless
 * `answers` says otherwise.
 *
 * @throws BadRequestError (400) for a malformed session id, or (param `messages`) an empty last
 *   user message while a question waits
 * @throws NotFoundError (404) for an unknown session or another tenant's
 * @throws ConflictError (409) when another request is streaming the session, or it failed or was canceled
 */
export async function resumeSession({
  store,
  client,
  sessionId: rawSessionId,
  tenant,
  requestId,
  request,
  res,
  responseHeaders,
  span,
  keepAliveMs,
  leaseCheckMs,
  api,
  toolPolicy,
  answers = 'oldest',
}: ResumeSessionOptions): Promise<void> {
  const sessionId = rawSessionId.trim();
  if (!SESSION_ID_PATTERN.test(sessionId)) {
    throw new BadRequestError(
      'X-Session-ID must be a session id (up to 128 letters, digits, ".", "_", ":" or "-").',
      {
        param: 'X-Session-ID',
      },
    );
  }
  addLogFields(res, { sessionId });
  const before = await store.getForTenant(sessionId, tenant);
  // An answer that cannot be recorded fails before the attach lease is taken.
  const waiting = isActiveStatus(before.status) ? questionToAnswer(before, answers) : undefined;
  if (waiting !== undefined) chatAnswer(request.messages, waiting);
  const attach = await holdAttachLease(store, {
    sessionId,
    owner: `gateway:${requestId}:${randomUUID()}`,
    waitMs: ATTACH_WAIT_MS,
  });
  if (attach === undefined) {
    throw new ConflictError('Another request is already streaming this session.', {
      details: { sessionId },
    });
  }
  const release = (): Promise<void> => attach.release();
  try {
    // Read again under the lease: the session may have moved on since the tenant check.
    const session = await store.getForTenant(sessionId, tenant);
    const answered = isAnswered(session);
    if (!answered && ENDED_STATUSES.has(session.status)) {
      throw new ConflictError(
        `Session ${sessionId} has ended (${session.status})${session.error === undefined ? '' : `: ${session.error}`}; it cannot be continued.`,
        { details: { status: session.status } },
      );
    }
    if (!answered && client === undefined) {
      throw new ServiceUnavailableError(
        'Resuming a session needs FLEET_INTERNAL_TOKEN, the token fleet services share; `pnpm fleet up` sets it.',
      );
    }
    if (!answered) {
      await answerPendingQuestion(store, session, {
        tenant,
        messages: request.messages,
        res,
        answers,
      });
    }
    if (span?.isRecording()) {
      span.updateName(`POST ${api?.path ?? '/v1/chat/completions'} (resume)`);
      span.setAttribute(Attributes.SPAN_KIND, SpanKind.CHAIN);
      setSessionAttributes(span, { sessionId, userId: tenant });
      setSpanInput(span, session.request);
    }
    await answerRun({
      events:
        answered || client === undefined
          ? storedAnswerEvents(session)
          : followSession({
              store,
              client,
              sessionId,
              toolPolicy,
              ...(leaseCheckMs === undefined ? {} : { leaseCheckMs }),
            }),
      orchestratorUrl: client?.url ?? 'unset',
      model: request.model,
      stream: request.stream === true,
      includeUsage: request.stream_options?.include_usage === true,
      res,
      responseHeaders,
      span,
      sessionId,
      beforeEnd: release,
      ...(keepAliveMs === undefined ? {} : { keepAliveMs }),
      channel: api?.channel,
    });
  } finally {
    await release();
  }
}
