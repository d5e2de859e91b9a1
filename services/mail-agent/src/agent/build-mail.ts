import { ValidationError } from '@fleet/errors';
import type { MailAction } from '../actions';
import { bareAddress, type Mailbox, type OutgoingMail } from '../mail';
import { findTarget } from './find-target';

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** Every recipient must be an address (or `Name <address>`): nothing is guessed. */
function checkAddresses(addresses: readonly string[]): void {
  const bad = addresses.filter((address) => !ADDRESS.test(bareAddress(address)));
  if (bad.length > 0) {
    throw new ValidationError(
      `Not an e-mail address: ${bad.map((address) => `"${address}"`).join(', ')}. Give the recipients' addresses.`,
    );
  }
}

function replySubject(subject: string): string {
  return /^\s*re\s*:/i.test(subject) ? subject : `Re: ${subject}`;
}

function requireBody(action: MailAction, what: string): string {
  const body = action.body?.trim();
  if (body === undefined || body === '') {
    throw new ValidationError(
      `The task does not say what the ${what} should say: add the text (e.g. "… saying <text>"), or run it after a step whose result it should carry.`,
    );
  }
  return body;
}

/** A reply in the thread of the target message: to its sender (or, in Sent, its recipients). */
async function buildReply(
  mailbox: Mailbox | undefined,
  action: MailAction,
  from: string,
): Promise<OutgoingMail> {
  const target = await findTarget(mailbox, action);
  const body = requireBody(action, 'reply');
  const own = bareAddress(from).toLowerCase();
  const to =
    action.folder === 'sent' ? target.to : [target.replyTo].filter((entry) => entry !== '');
  const others =
    action.replyAll === true
      ? [...target.to, ...target.cc].filter(
          (address) => bareAddress(address).toLowerCase() !== own && !to.includes(address),
        )
      : [];
  if (to.length === 0) {
    throw new ValidationError(`The message "${target.subject}" has no address to reply to.`);
  }
  checkAddresses(action.cc);
  const references = [
    ...target.references,
    ...(target.messageId === undefined ? [] : [target.messageId]),
  ];
  return {
    from,
    to,
    cc: [...others, ...action.cc],
    subject: replySubject(target.subject),
    text: body,
    ...(target.messageId === undefined ? {} : { inReplyTo: target.messageId }),
    references,
  };
}

/**
 * The mail a send, draft or reply action writes. Recipients must be addresses and the body must
 * be given; a reply answers the message `findTarget` finds.
 *
 * @throws ValidationError naming what is missing or wrong.
 * @example
 * const mail = await buildMail(settings.mailbox, action, account.from);
 */
export async function buildMail(
  mailbox: Mailbox | undefined,
  action: MailAction,
  from: string,
): Promise<OutgoingMail> {
  if (action.action === 'reply') return buildReply(mailbox, action, from);
  if (action.to.length === 0) {
    throw new ValidationError(
      'The task names no recipient: give an address (e.g. "send … to name@example.com").',
    );
  }
  checkAddresses([...action.to, ...action.cc]);
  const body = requireBody(action, 'mail');
  return {
    from,
    to: action.to,
    cc: action.cc,
    subject: action.mailSubject?.trim() || body.split('\n')[0]?.slice(0, 78) || '(no subject)',
    text: body,
    references: [],
  };
}
