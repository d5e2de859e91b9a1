import { findData, type ApprovalDecision } from '@fleet/a2a';
import type { AgentContext } from '@fleet/a2a/server';
import { dependencyContext, rejected, type AgentEvents } from '@fleet/agent-kit';
import type { OutgoingMail } from '../mail';
import { approvalExpiry, askApproval } from './ask-approval';
import { buildMail } from './build-mail';
import type { MailAgentSettings } from './mail-agent-settings';
import { originalRequest } from './original-request';
import { pendingMailSchema, type PendingMail } from './result-data';
import { sendApproved } from './send-approved';

/** The newest mail waiting for approval, from the task's history (the AUTH_REQUIRED message). */
function findPendingMail(context: AgentContext): PendingMail | undefined {
  const messages = [...(context.task.history ?? [])];
  if (context.task.status.message !== undefined) messages.push(context.task.status.message);
  for (const message of messages.reverse()) {
    if (message.role !== 'ROLE_AGENT') continue;
    const pending = findData(message.parts, pendingMailSchema);
    if (pending !== undefined) return pending.pendingMail;
  }
  return undefined;
}

function sameMail(a: OutgoingMail, b: OutgoingMail): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The person asked for changes: the mail written again for the task with their instructions, or
 * undefined when it comes out the same (then the approved mail is sent).
 */
async function rewrite(
  settings: MailAgentSettings,
  context: AgentContext,
  { pending, decision }: { pending: PendingMail; decision: ApprovalDecision },
): Promise<PendingMail | undefined> {
  const instructions = decision.instructions?.trim();
  if (instructions === undefined || instructions === '') return undefined;
  const first = context.task.history?.find((message) => message.role === 'ROLE_USER');
  const node = first === undefined ? undefined : originalRequest(first).node;
  const task =
    decision.effectiveTask ??
    `${pending.task}\n\nAdditional instructions from the approver: ${instructions}`;
  const chosen = await settings.chooser.choose({
    task,
    context: dependencyContext(node),
    now: settings.now(),
    signal: context.signal,
  });
  const action = { ...chosen.action, action: pending.action };
  const mail = await buildMail(settings.mailbox, action, pending.mail.from);
  if (sameMail(mail, pending.mail)) return undefined;
  return { ...pending, mail, task, expiresAt: approvalExpiry(settings) };
}

/**
 * The continuation of a send or reply waiting for approval. Deny ends the task REJECTED and sends
 * nothing, as does an approval that arrives after it expired; approval with instructions rewrites
 * the mail and asks again, since the person has not seen the new one; plain approval sends the
 * pending mail exactly (`sendApproved`).
 *
 * @example
 * yield* continueAfterApproval(settings, context, decision.approvalDecision);
 */
export async function* continueAfterApproval(
  settings: MailAgentSettings,
  context: AgentContext,
  decision: ApprovalDecision,
): AgentEvents {
  const pending = findPendingMail(context);
  if (pending === undefined) {
    yield rejected('This task has no mail waiting for approval; start a new task.');
    return;
  }
  if (decision.decision === 'deny') {
    const reason = decision.instructions?.trim() || 'no reason given';
    yield rejected(`Denied: ${reason}. The mail was not sent.`, {
      denied: true,
      mail: pending.mail,
    });
    return;
  }
  if (settings.now().getTime() > Date.parse(pending.expiresAt)) {
    yield rejected(
      `The approval arrived after it expired (${pending.expiresAt}); the mail was not sent. Start the task again.`,
      { expired: true, mail: pending.mail },
    );
    return;
  }
  const rewritten = await rewrite(settings, context, { pending, decision });
  if (rewritten !== undefined) {
    yield askApproval(rewritten);
    return;
  }
  yield* sendApproved(settings, context, pending);
}
