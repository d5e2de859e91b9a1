import { completed, result, working, type AgentEvents } from '@fleet/agent-kit';
import type { ChosenAction } from '../actions';
import { composeMail, renderMailPreview } from '../mail';
import { buildMail } from './build-mail';
import { needMailbox, type MailAgentSettings } from './mail-agent-settings';
import { chosenData, type DraftResultData } from './result-data';

/**
 * The `draft` action: writes the mail and saves it in Drafts. Nothing is sent.
 *
 * @example
 * yield* runDraft(settings, chosen, account.from);
 */
export async function* runDraft(
  settings: MailAgentSettings,
  chosen: ChosenAction,
  from: string,
): AgentEvents {
  const imap = needMailbox(settings.mailbox, 'save a draft');
  const mail = await buildMail(settings.mailbox, chosen.action, from);
  yield working('Saving the draft…', { stage: 'drafting' });
  const composed = await composeMail(mail, settings.now());
  const saved = await imap.saveDraft(composed.raw);
  const data: DraftResultData = {
    action: 'draft',
    mail,
    mailbox: saved.mailbox,
    ...(saved.uid === undefined ? {} : { uid: saved.uid }),
    messageId: composed.messageId,
    ...chosenData(chosen),
  };
  yield result(
    `Saved a draft in ${saved.mailbox} (nothing was sent):\n\n${renderMailPreview(mail)}`,
    data,
  );
  yield completed(`Saved the draft "${mail.subject}" in ${saved.mailbox}.`);
}
