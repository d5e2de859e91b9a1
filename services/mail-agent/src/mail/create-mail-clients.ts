import { createImapMailbox, type Mailbox } from './create-imap-mailbox';
import { createSmtpSender, type MailSender } from './create-smtp-sender';
import type { MailAccount } from './mail-account';

/** The account's two sides; each is undefined when its server is not configured. */
export interface MailClients {
  /** Search, read, drafts, Sent copies; undefined without an IMAP server. */
  mailbox: Mailbox | undefined;
  /** Send and reply; undefined without an SMTP server. */
  sender: MailSender | undefined;
}

/**
 * The IMAP mailbox and the SMTP sender of the account, as far as it configures them.
 *
 * @example
 * const { mailbox, sender } = createMailClients(mailAccountFromConfig(config));
 */
export function createMailClients(account: MailAccount | undefined): MailClients {
  const imap = account?.imap;
  const smtp = account?.smtp;
  return {
    mailbox: account && imap ? createImapMailbox({ ...account, imap }) : undefined,
    sender: account && smtp ? createSmtpSender({ ...account, smtp }) : undefined,
  };
}
