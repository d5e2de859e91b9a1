import { randomUUID } from 'node:crypto';
import { ServiceUnavailableError } from '@fleet/errors';
import type { ServerContext } from '@modelcontextprotocol/server';
import {
  DECISION_FORM,
  decisionFormSchema,
  describeApproval,
  type ApprovalEvent,
} from './approval-form';
import type { ApprovalChoice, AskScope } from './ask-scope';

/**
 * Asks a 2025-era client to decide with an elicitation sent on the call's own stream, once the
 * wait for its answer is registered (the answer may reach any gateway replica).
 */
async function elicitDecision(
  { server, deps, caller }: AskScope,
  ctx: ServerContext,
  { approval, signal }: { approval: ApprovalEvent; signal: AbortSignal },
): Promise<ApprovalChoice> {
  const id = `fleet-elicit-${randomUUID()}`;
  // Ends the wait however this ends (a failed send included).
  const done = new AbortController();
  try {
    const pending = await deps.legacy.awaitResponse(
      caller.tenant,
      id,
      AbortSignal.any([signal, done.signal]),
    );
    const transport = server.server.transport;
    if (transport === undefined) throw new ServiceUnavailableError('The MCP call has ended.');
    await transport.send(
      {
        jsonrpc: '2.0',
        id,
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: describeApproval(approval),
          requestedSchema: DECISION_FORM,
        },
      },
      { relatedRequestId: ctx.mcpReq.id },
    );
    const message = await pending.answer;
    const result = message['result'] as { action?: unknown; content?: unknown } | undefined;
    const form = decisionFormSchema.safeParse(result?.content);
    if (result?.action === 'accept' && form.success) {
      return { decision: form.data.decision, instructions: form.data.instructions };
    }
    return { decision: 'deny', instructions: undefined };
  } finally {
    done.abort();
  }
}

/** Whether the caller is a 2025-era client that declared elicitation on its connection. */
export async function canElicit({ deps, caller }: AskScope): Promise<boolean> {
  if (caller.era !== 'legacy') return false;
  return (await deps.legacy.client(caller.tenant, caller.connectionId))?.elicitation === true;
}

/**
 * The person's decision through the form, or undefined when the approval was decided elsewhere
 * (the console, the API, a cancel) before they answered: the form is then left unanswered and
 * the run goes on.
 */
export async function elicitUnlessDecided(
  scope: AskScope,
  ctx: ServerContext,
  {
    sessionId,
    approval,
    signal,
  }: { sessionId: string; approval: ApprovalEvent; signal: AbortSignal },
): Promise<ApprovalChoice | undefined> {
  const { sessions } = scope.deps;
  const elsewhere = new AbortController();
  const unsubscribe = await sessions.subscribe(sessionId, (event) => {
    const decided = event.type === 'approval-decided' && event.approvalId === approval.approvalId;
    if (decided || event.type === 'session-canceled') elsewhere.abort();
  });
  try {
    const current = await sessions.get(sessionId);
    if (current?.approvals[approval.approvalId]?.status !== 'pending') return undefined;
    return await elicitDecision(scope, ctx, {
      approval,
      signal: AbortSignal.any([signal, elsewhere.signal]),
    });
  } catch (error) {
    if (elsewhere.signal.aborted && !signal.aborted) return undefined;
    throw error;
  } finally {
    await unsubscribe();
  }
}
