import { NotFoundError } from '@fleet/errors';
import { actionCriteria, type MailAction } from '../actions';
import type { FullMessage, Mailbox } from '../mail';
import { needMailbox } from './mail-agent-settings';

/**
 * The message a read or reply is about: by uid, else the newest match of the action's criteria.
 *
 * @throws NotFoundError when nothing matches or the folder has no such uid.
 * @example
 * const message = await findTarget(settings.mailbox, action);
 */
export async function findTarget(
  mailbox: Mailbox | undefined,
  action: MailAction,
): Promise<FullMessage> {
  const reading = action.action === 'read';
  const imap = needMailbox(mailbox, reading ? 'read mail' : 'find the mail to reply to');
  let uid = action.uid;
  if (uid === undefined) {
    const criteria = actionCriteria(action);
    const found = await imap.search({ folder: action.folder, criteria, limit: 1 });
    uid = found.messages[0]?.uid;
    if (uid === undefined) {
      throw new NotFoundError(
        `No message in ${found.mailbox} matches ${JSON.stringify(criteria)}; nothing to ${reading ? 'read' : 'reply to'}.`,
        { details: { mailbox: found.mailbox, criteria } },
      );
    }
  }
  const message = await imap.read({ folder: action.folder, uid });
  if (message === undefined) {
    throw new NotFoundError(`There is no message with uid ${uid} in the ${action.folder} folder.`);
  }
  return message;
}
