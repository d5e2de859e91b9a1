import {
  inputRequired,
  inputResponse,
  type CallToolResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { QuestionAnswered } from '../sessions';
import { MAX_STATE_TTL_MS, type ApprovalState } from './approval-state';
import { pauseReplied } from './ask-pauses';
import { questionInSession } from './ask-question';
import { reviewInSession } from './ask-review';
import type { AskScope } from './ask-scope';
import { describePause, pauseForm, type FormReply, type Pause } from './pause-forms';

/** The key of the question form among an input-required result's requests. */
export const QUESTION_INPUT_KEY = 'question';

/** The key of the review form among an input-required result's requests. */
export const REVIEW_INPUT_KEY = 'review';

/** What a 2026-era retry carrying a signed `requestState` comes to. */
export type StatedRetry =
  /** The call carried no `requestState`: nothing was decided or answered. */
  | { kind: 'none' }
  /**
   * Decided or answered (or settled elsewhere meanwhile): the run of `sessionId` is followed on,
   * `answer` (when given) answering the question `answers` names.
   */
  | {
      kind: 'follow';
      sessionId: string;
      answer?: string | undefined;
      answers: QuestionAnswered;
    }
  /**
   * The session waits for `pause`: asked with its form when `ask` (and the client can be asked),
   * `note` saying why a form is asked again; else answered as waiting, with how to continue.
   */
  | { kind: 'paused'; sessionId: string; pause: Pause; ask: boolean; note?: string | undefined };

/** The key of a pause's form among an input-required result's requests. */
function inputKey(pause: Pause): string {
  return pause.kind === 'question' ? QUESTION_INPUT_KEY : REVIEW_INPUT_KEY;
}

/**
 * The input-required result that asks a 2026-era client the pause's form (an agent's question, a
 * review of the answer), its `requestState` signed for the kind, the tenant, the session, what it
 * answers and the call's arguments.
 */
export function pauseInputRequired(
  { deps, caller }: AskScope,
  {
    pause,
    sessionId,
    digest,
    note,
  }: { pause: Pause; sessionId: string; digest: string; note?: string | undefined },
): CallToolResult {
  const latest = Date.now() + MAX_STATE_TTL_MS;
  const expires = Date.parse(pause.expiresAt);
  return inputRequired({
    inputRequests: {
      [inputKey(pause)]: inputRequired.elicit({
        message: describePause(pause, note),
        requestedSchema: pauseForm(pause) as never,
      }),
    },
    requestState: deps.stateCodec.mint({
      kind: pause.kind,
      tenant: caller.tenant,
      sessionId,
      approvalId: pause.id,
      expiresAt: Number.isNaN(expires) ? latest : Math.min(expires, latest),
      argumentsDigest: digest,
    }),
  }) as unknown as CallToolResult;
}

/**
 * Applies the reply a 2026-era retry brings to the question or review its verified state names:
 * the answer given or the decision recorded (one settled elsewhere meanwhile is followed on,
 * never answered again), a form not filled in as it asks asked again, a form declined answered
 * as waiting.
 */
export async function applyStatedPause(
  scope: AskScope,
  ctx: ServerContext,
  state: ApprovalState & { kind: 'question' | 'review' },
): Promise<StatedRetry> {
  const { sessionId, approvalId } = state;
  const session = await scope.deps.sessions.getForTenant(sessionId, scope.caller.tenant);
  const pause =
    state.kind === 'question'
      ? questionInSession(session, approvalId)
      : reviewInSession(session, approvalId);
  if (pause === undefined) return { kind: 'follow', sessionId, answers: 'none' };
  const view = inputResponse(ctx.mcpReq.inputResponses, inputKey(pause));
  const reply: FormReply =
    view.kind === 'elicit'
      ? { action: view.action, content: view.content }
      : { action: 'cancel', content: undefined };
  const next = await pauseReplied(scope, { sessionId, pause, reply });
  switch (next.kind) {
    case 'stay':
      return { kind: 'paused', sessionId, pause, ask: false };
    case 'again':
      return { kind: 'paused', sessionId, pause, ask: true, note: next.note };
    case 'follow':
      return { kind: 'follow', sessionId, answer: next.answer, answers: next.answers };
  }
}
