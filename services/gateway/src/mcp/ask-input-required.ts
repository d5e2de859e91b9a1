import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  type CallToolResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { oldestAnswerableInput } from '../sessions';
import { MAX_STATE_TTL_MS } from './approval-state';
import {
  DECISION_FORM,
  decisionFormSchema,
  describeApproval,
  type ApprovalEvent,
} from './approval-form';
import { askOutput, NOTHING_FOLLOWED, pausedFor } from './ask-answer';
import { decideAndResume } from './ask-decision';
import type { AskScope } from './ask-scope';
import { structuredResult } from './tool-results';

/** The key of the approval form among an input-required result's requests. */
export const APPROVAL_INPUT_KEY = 'approval';

/** Whether a 2026-era call declared form elicitation in its envelope. */
export function modernElicitation(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as
    { elicitation?: { form?: unknown; url?: unknown } } | undefined;
  const elicitation = capabilities?.elicitation;
  if (elicitation === undefined || elicitation === null) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** What a 2026-era retry carrying a signed `requestState` comes to. */
export type StatedRetry =
  /** The call carried no `requestState`: nothing was decided. */
  | { kind: 'none' }
  /** The approval was decided; the run of `sessionId` is followed on. */
  | { kind: 'decided'; sessionId: string }
  /** The approval was decided, and the session now waits for an agent's question: the answer. */
  | { kind: 'answered'; result: CallToolResult };

/**
 * Applies the decision a 2026-era retry brings for the approval its signed `requestState` names
 * (a form not accepted denies), then says whether the run is to be followed on or the session
 * now waits for an answer to an agent's question.
 */
export async function applyStatedDecision(
  scope: AskScope,
  ctx: ServerContext,
  digest: string,
): Promise<StatedRetry> {
  const { caller, deps } = scope;
  const { tenant } = caller;
  const state = caller.era === 'modern' ? ctx.mcpReq.requestState() : undefined;
  if (state === undefined) return { kind: 'none' };
  const verified = deps.stateCodec.verify(typeof state === 'string' ? state : '', {
    tenant,
    argumentsDigest: digest,
  });
  const view = inputResponse(ctx.mcpReq.inputResponses, APPROVAL_INPUT_KEY);
  const form =
    view.kind === 'elicit' && view.action === 'accept'
      ? decisionFormSchema.safeParse(view.content)
      : undefined;
  const decision = form?.success === true ? form.data.decision : 'deny';
  const instructions = form?.success === true ? form.data.instructions : undefined;
  await decideAndResume(scope, {
    sessionId: verified.sessionId,
    approvalId: verified.approvalId,
    decision,
    instructions,
  });
  // The retry's question is the original one, never an answer to an agent's question.
  const session = await deps.sessions.getForTenant(verified.sessionId, tenant);
  const question = oldestAnswerableInput(session);
  if (question === undefined) return { kind: 'decided', sessionId: verified.sessionId };
  return {
    kind: 'answered',
    result: structuredResult(
      askOutput(
        {
          ...NOTHING_FOLLOWED,
          sessionId: verified.sessionId,
          paused: pausedFor(
            { type: 'input-required', question: question.preview },
            verified.sessionId,
          ),
        },
        session,
      ),
    ),
  };
}

/**
 * The input-required result that asks a 2026-era client to decide `waiting` with the approval
 * form, its `requestState` signed for the tenant, the session, the approval and the call's
 * arguments.
 */
export function approvalInputRequired(
  { deps, caller }: AskScope,
  { waiting, sessionId, digest }: { waiting: ApprovalEvent; sessionId: string; digest: string },
): CallToolResult {
  const expiresAt = Math.min(Date.parse(waiting.expiresAt), Date.now() + MAX_STATE_TTL_MS);
  return inputRequired({
    inputRequests: {
      [APPROVAL_INPUT_KEY]: inputRequired.elicit({
        message: describeApproval(waiting),
        requestedSchema: DECISION_FORM as never,
      }),
    },
    requestState: deps.stateCodec.mint({
      tenant: caller.tenant,
      sessionId,
      approvalId: waiting.approvalId,
      expiresAt,
      argumentsDigest: digest,
    }),
  }) as unknown as CallToolResult;
}
