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
import { decideAndResume } from './ask-decision';
import { applyStatedPause, type StatedRetry } from './ask-pause-state';
import { questionInSession } from './ask-question';
import type { AskScope } from './ask-scope';

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

/**
 * Applies what a 2026-era retry brings for what its signed `requestState` names. An approval: the
 * decision (a form not accepted denies), then the run is followed on — or, when the session now
 * waits for an agent's question, that question is asked. A question or a review: see
 * {@link applyStatedPause}.
 * @throws BadRequestError (param `requestState`) for a state that is not the gateway's own, or
 *   another tenant's, expired, or for other arguments: nothing is decided or answered
 */
export async function applyStatedRetry(
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
  const { kind = 'approval', sessionId } = verified;
  if (kind !== 'approval') return applyStatedPause(scope, ctx, { ...verified, kind });
  const view = inputResponse(ctx.mcpReq.inputResponses, APPROVAL_INPUT_KEY);
  const form =
    view.kind === 'elicit' && view.action === 'accept'
      ? decisionFormSchema.safeParse(view.content)
      : undefined;
  const decision = form?.success === true ? form.data.decision : 'deny';
  const instructions = form?.success === true ? form.data.instructions : undefined;
  await decideAndResume(scope, {
    sessionId,
    approvalId: verified.approvalId,
    decision,
    instructions,
  });
  // The retry's question is the original one, never an answer to an agent's question.
  const session = await deps.sessions.getForTenant(sessionId, tenant);
  const question = oldestAnswerableInput(session);
  const pause = question === undefined ? undefined : questionInSession(session, question.id);
  if (pause === undefined) return { kind: 'follow', sessionId, answers: 'none' };
  return { kind: 'paused', sessionId, pause, ask: true };
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
