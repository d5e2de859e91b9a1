import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { A2AClient } from '@fleet/a2a/client';
import { BadRequestError, ConflictError, ServiceUnavailableError } from '@fleet/errors';
import { addLogFields } from '@fleet/http';
import type { SessionStore } from '@fleet/sessions';
import {
  Attributes,
  SpanKind,
  setSessionAttributes,
  setSpanInput,
  type Span,
} from '@fleet/telemetry';
import { answerRun } from '../orchestration';
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
  /** The request's `model` and `stream` (its messages are ignored). */
  request: { model: string; stream?: boolean | null | undefined };
  res: ServerResponse;
  /** Headers every answer carries (the route taken). */
  responseHeaders: Record<string, string>;
  span: Span | undefined;
  /** Keep-alive comment interval while the run is quiet. @default 15000 */
  keepAliveMs?: number;
  /** See {@link followSession}. @default 5000 */
  leaseCheckMs?: number;
}

/** Session ids the store creates are UUIDs; anything far from an id is refused before Redis. */
const SESSION_ID_PATTERN = /^[\w.:-]{1,128}$/;

/** How long the attach lease lives without renewal; renewed every third of it while streaming. */
const ATTACH_TTL_MS = 15_000;

/**
 * Continues a session (`POST /v1/chat/completions` with `X-Session-ID`, ARCHITECTURE.md §3, §6)
 * and answers exactly like a new orchestrated run: the stored answer if it has completed, else the
 * rest of its run ({@link followSession}). One client at a time streams a session: the request
 * holds the session's attach lease (renewed while it streams, released when the response ends).
 *
 * @throws BadRequestError (400) for a malformed session id
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
  await store.getForTenant(sessionId, tenant);
  const attach = await store.acquireAttach(
    sessionId,
    `gateway:${requestId}:${randomUUID()}`,
    ATTACH_TTL_MS,
  );
  if (attach === undefined) {
    throw new ConflictError('Another request is already streaming this session.', {
      details: { sessionId },
    });
  }
  const renewal = setInterval(
    () => {
      attach.renew().catch(() => undefined);
    },
    Math.floor(ATTACH_TTL_MS / 3),
  );
  renewal.unref();
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    clearInterval(renewal);
    await attach.release().catch(() => undefined);
  };
  try {
    // Read again under the lease: the session may have moved on since the tenant check.
    const session = await store.getForTenant(sessionId, tenant);
    if (session.status !== 'completed' && ENDED_STATUSES.has(session.status)) {
      throw new ConflictError(
        `Session ${sessionId} has ended (${session.status})${session.error === undefined ? '' : `: ${session.error}`}; it cannot be continued.`,
        { details: { status: session.status } },
      );
    }
    if (session.status !== 'completed' && client === undefined) {
      throw new ServiceUnavailableError(
        'Resuming a session needs FLEET_INTERNAL_TOKEN, the token fleet services share; `pnpm fleet up` sets it.',
      );
    }
    if (span?.isRecording()) {
      span.updateName('POST /v1/chat/completions (resume)');
      span.setAttribute(Attributes.SPAN_KIND, SpanKind.CHAIN);
      setSessionAttributes(span, { sessionId, userId: tenant });
      setSpanInput(span, session.request);
    }
    await answerRun({
      events:
        session.status === 'completed' || client === undefined
          ? storedAnswerEvents(session)
          : followSession({
              store,
              client,
              sessionId,
              ...(leaseCheckMs === undefined ? {} : { leaseCheckMs }),
            }),
      orchestratorUrl: client?.url ?? 'unset',
      model: request.model,
      stream: request.stream === true,
      res,
      responseHeaders,
      span,
      sessionId,
      beforeEnd: release,
      ...(keepAliveMs === undefined ? {} : { keepAliveMs }),
    });
  } finally {
    await release();
  }
}
