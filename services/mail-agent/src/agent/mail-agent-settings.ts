import { ConfigError } from '@fleet/errors';
import type { ActionChooser, LlmSettings } from '../actions';
import { MAILBOX_HINT } from '../config';
import type { MailAccount, MailSender, Mailbox } from '../mail';

/**
 * What every action of the mail agent works with: `createMailAgent`'s options with their defaults
 * applied.
 */
export interface MailAgentSettings {
  /** The configured mailbox; undefined fails every task with how to configure one. */
  account: MailAccount | undefined;
  /** The IMAP side (search, read, drafts, Sent copies); undefined without MAIL_IMAP_HOST. */
  mailbox: Mailbox | undefined;
  /** The SMTP side (send, reply); undefined without MAIL_SMTP_HOST. */
  sender: MailSender | undefined;
  chooser: ActionChooser;
  /** For summaries; undefined in offline mode (summaries are lists). */
  llm: LlmSettings | undefined;
  /** Most messages a search reports. */
  searchLimit: number;
  /** How long an approval to send stays valid. */
  approvalTtlMs: number;
  now: () => Date;
  logger: { warn(object: object, message?: string): void } | undefined;
}

/**
 * The IMAP side, or a ConfigError saying the agent cannot do `action` without MAIL_IMAP_HOST.
 *
 * @example
 * const imap = needMailbox(settings.mailbox, 'search mail');
 */
export function needMailbox(mailbox: Mailbox | undefined, action: string): Mailbox {
  if (mailbox === undefined) {
    throw new ConfigError(
      `The mail agent cannot ${action}: no IMAP server is configured (MAIL_IMAP_HOST). ${MAILBOX_HINT}`,
    );
  }
  return mailbox;
}

/**
 * The SMTP side, or a ConfigError saying the agent cannot do `action` without MAIL_SMTP_HOST.
 *
 * @example
 * const smtp = needSender(settings.sender, 'send mail');
 */
export function needSender(sender: MailSender | undefined, action: string): MailSender {
  if (sender === undefined) {
    throw new ConfigError(
      `The mail agent cannot ${action}: no SMTP server is configured (MAIL_SMTP_HOST). ${MAILBOX_HINT}`,
    );
  }
  return sender;
}
