import type { AgentAvailability } from '@fleet/a2a';
import { MAILBOX_HINT } from '../config';
import type { MailAccount } from '../mail';
import { MAIL_SKILLS } from './mail-card';

/**
 * Whether the mail agent can work with the account it has (its card's availability extension and
 * `/readyz`, docs/agents.md): no account (neither IMAP nor SMTP) is `unconfigured` with
 * {@link MAILBOX_HINT}; IMAP without SMTP is `degraded` with `send` and `reply` unavailable; SMTP
 * without IMAP is `degraded` with `search`, `read` and `draft` unavailable (a draft is saved over
 * IMAP); both are `ready`.
 *
 * @example
 * mailAvailability(undefined); // { state: 'unconfigured', reason: 'No mailbox is configured: …' }
 */
export function mailAvailability(
  account: Pick<MailAccount, 'imap' | 'smtp'> | undefined,
): AgentAvailability {
  const imap = account?.imap !== undefined;
  const smtp = account?.smtp !== undefined;
  if (!imap && !smtp) return { state: 'unconfigured', reason: MAILBOX_HINT };
  if (imap && smtp) return { state: 'ready' };
  if (imap) {
    return {
      state: 'degraded',
      reason:
        'No SMTP server is configured, so the mail agent cannot send or reply: set MAIL_SMTP_HOST (and MAIL_SMTP_PORT if needed), then restart the mail agent.',
      unavailableSkills: [MAIL_SKILLS.send, MAIL_SKILLS.reply],
    };
  }
  return {
    state: 'degraded',
    reason:
      'No IMAP server is configured, so the mail agent cannot search, read or save drafts: set MAIL_IMAP_HOST (and MAIL_IMAP_PORT if needed), then restart the mail agent.',
    unavailableSkills: [MAIL_SKILLS.search, MAIL_SKILLS.read, MAIL_SKILLS.draft],
  };
}
