import { dataPart, textPart } from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import { renderMailPreview } from '../mail';
import type { MailAgentSettings } from './mail-agent-settings';
import type { PendingMail } from './result-data';

/**
 * When an approval asked for now stops being valid (ISO time): now plus MAIL_APPROVAL_TTL_SECONDS.
 *
 * @example
 * const pending: PendingMail = { action: 'send', mail, task, expiresAt: approvalExpiry(settings) };
 */
export function approvalExpiry({ now, approvalTtlMs }: MailAgentSettings): string {
  return new Date(now().getTime() + approvalTtlMs).toISOString();
}

/**
 * The TASK_STATE_AUTH_REQUIRED status that stops for approval with the full mail: the preview as
 * text, `{ approval: { action: 'send-mail' | 'reply-mail', summary, preview, risk, expiresAt } }`
 * and `{ pendingMail }`, which the continuation reads back and sends exactly.
 *
 * @example
 * yield askApproval({ action: 'send', mail, task, expiresAt: approvalExpiry(settings) });
 */
export function askApproval(pending: PendingMail): AgentEvent {
  const { mail } = pending;
  const verb = pending.action === 'reply' ? 'Reply' : 'Send';
  const summary = `${verb} "${mail.subject}" to ${[...mail.to, ...mail.cc].join(', ')}`;
  const preview = renderMailPreview(mail);
  return {
    type: 'status',
    state: 'TASK_STATE_AUTH_REQUIRED',
    message: [
      textPart(`Approval needed: ${summary}.\n\n${preview}`),
      dataPart({
        approval: {
          action: pending.action === 'reply' ? 'reply-mail' : 'send-mail',
          summary,
          preview,
          risk: pending.action === 'reply' ? 'medium' : 'high',
          expiresAt: pending.expiresAt,
        },
      }),
      dataPart({ pendingMail: pending }),
    ],
  };
}
