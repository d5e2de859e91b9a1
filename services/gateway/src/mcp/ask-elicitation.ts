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
 * Sends an `elicitation/create` form on a 2025-era call's own stream, once the wait for its answer
 * is registered (the answer may reach any gateway replica), and resolves with the client's
 * JSON-RPC answer. The wait ends however this ends (a failed send included).
 */
export async function sendElicitation(
  { server, deps, caller }: AskScope,
  ctx: ServerContext,
  {
    message,
    requestedSchema,
    signal,
  }: { message: string; requestedSchema: unknown; signal: AbortSignal },
): Promise<Record<string, unknown>> {
  const id = `fleet-elicit-${randomUUID()}`;
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
        params: { mode: 'form', message, requestedSchema },
      },
      { relatedRequestId: ctx.mcpReq.id },
    );
    return await pending.answer;
  } finally {
    done.abort();
  }
}

/** Asks a 2025-era client to decide an approval with the decision form. */
async function elicitDecision(
  scope: AskScope,
  ctx: ServerContext,
  { approval, signal }: { approval: ApprovalEvent; signal: AbortSignal },
): Promise<ApprovalChoice> {
  const message = await sendElicitation(scope, ctx, {
    message: describeApproval(approval),
    requestedSchema: DECISION_FORM,
    signal,
  });
  const result = message['result'] as { action?: unknown; content?: unknown } | undefined;
  const form = decisionFormSchema.safeParse(result?.content);
  if (result?.action === 'accept' && form.success) {
    return { decision: form.data.decision, instructions: form.data.instructions };
  }
  return { decision: 'deny', instructions: undefined };
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
