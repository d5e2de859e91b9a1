import type { AgentContext, AgentEvent } from '@fleet/a2a/server';
import { completed, result, working, type AgentEvents } from '@fleet/agent-kit';
import { composeMail, type ComposedMail } from '../mail';
import { needSender, type MailAgentSettings } from './mail-agent-settings';
import type { PendingMail, SendResultData } from './result-data';

/** The claim key of the one send a task may make (`AgentContext.claimOnce`). */
export const SEND_CLAIM_KEY = 'send-mail';

/** Where the copy in Sent went, or why filing it failed. */
type FiledCopy = Pick<SendResultData, 'savedTo' | 'saveError'>;

/** Files a copy of the sent mail in Sent when MAIL_SAVE_SENT_COPY; a failure is reported, not thrown. */
async function fileSentCopy(
  { account, mailbox, logger }: MailAgentSettings,
  composed: ComposedMail,
): Promise<FiledCopy> {
  if (account?.saveSentCopy !== true || mailbox === undefined) return {};
  try {
    const saved = await mailbox.saveSent(composed.raw);
    return {
      savedTo: { mailbox: saved.mailbox, ...(saved.uid === undefined ? {} : { uid: saved.uid }) },
    };
  } catch (error) {
    logger?.warn({ err: error }, 'the mail was sent but filing a copy in Sent failed');
    return { saveError: error instanceof Error ? error.message : String(error) };
  }
}

/** The result and status saying, without sending, that an earlier turn already claimed the send. */
function alreadySent(pending: PendingMail): AgentEvent[] {
  const { mail } = pending;
  const data: SendResultData = {
    action: pending.action,
    mail,
    sent: false,
    accepted: [],
    rejected: [],
  };
  return [
    result(
      `This mail ("${mail.subject}" to ${mail.to.join(', ')}) was already sent (or attempted) by an earlier turn of this task; it was not sent again.`,
      data,
    ),
    completed('Already sent; not sent again.'),
  ];
}

/**
 * The approved send or reply: claimed first (`claimOnce`), so it happens at most once for the
 * task even when the approval is repeated or a replica restarts; then sent over SMTP exactly as
 * approved, and a copy filed in Sent when MAIL_SAVE_SENT_COPY.
 *
 * @example
 * yield* sendApproved(settings, context, pending);
 */
export async function* sendApproved(
  settings: MailAgentSettings,
  context: AgentContext,
  pending: PendingMail,
): AgentEvents {
  const smtp = needSender(settings.sender, pending.action === 'reply' ? 'reply' : 'send mail');
  const { mail } = pending;
  if (!(await context.claimOnce(SEND_CLAIM_KEY))) {
    yield* alreadySent(pending);
    return;
  }
  yield working(`Sending "${mail.subject}"…`, { stage: 'sending' });
  const composed = await composeMail(mail, settings.now());
  const receipt = await smtp.send(composed);
  const { savedTo, saveError } = await fileSentCopy(settings, composed);
  const data: SendResultData = {
    action: pending.action,
    mail,
    sent: true,
    messageId: receipt.messageId,
    accepted: receipt.accepted,
    rejected: receipt.rejected,
    ...(savedTo === undefined ? {} : { savedTo }),
    ...(saveError === undefined ? {} : { saveError }),
  };
  const lines = [
    `${pending.action === 'reply' ? 'Replied' : 'Sent'} "${mail.subject}" to ${receipt.accepted.join(', ') || mail.to.join(', ')} (Message-ID ${receipt.messageId}).`,
  ];
  if (receipt.rejected.length > 0)
    lines.push(`The server refused: ${receipt.rejected.join(', ')}.`);
  if (savedTo !== undefined) lines.push(`A copy is in ${savedTo.mailbox}.`);
  if (saveError !== undefined) lines.push(`Filing a copy in Sent failed: ${saveError}`);
  yield result(lines.join(' '), data);
  yield completed(lines[0] ?? 'Sent.');
}
