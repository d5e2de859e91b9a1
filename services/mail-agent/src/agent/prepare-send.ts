import { working, type AgentEvents } from '@fleet/agent-kit';
import type { MailAction } from '../actions';
import { approvalExpiry, askApproval } from './ask-approval';
import { buildMail } from './build-mail';
import { needSender, type MailAgentSettings } from './mail-agent-settings';

/** Options for {@link prepareSend}. */
export interface PrepareSendOptions {
  /** The task the mail is written for (kept with the pending mail). */
  task: string;
  /** A `send` or `reply` action. */
  action: MailAction;
  from: string;
}

/**
 * The first turn of the `send` and `reply` actions: writes the mail and stops at
 * TASK_STATE_AUTH_REQUIRED with it as the approval's preview. Nothing is sent yet.
 *
 * @example
 * yield* prepareSend(settings, { task, action, from: account.from });
 */
export async function* prepareSend(
  settings: MailAgentSettings,
  { task, action, from }: PrepareSendOptions,
): AgentEvents {
  const replying = action.action === 'reply';
  needSender(settings.sender, replying ? 'reply' : 'send mail');
  yield working(replying ? 'Writing the reply…' : 'Writing the mail…', { stage: 'drafting' });
  const mail = await buildMail(settings.mailbox, action, from);
  yield askApproval({
    action: replying ? 'reply' : 'send',
    mail,
    task,
    expiresAt: approvalExpiry(settings),
  });
}
