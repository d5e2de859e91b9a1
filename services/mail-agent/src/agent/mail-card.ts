import type { AgentAvailability, AgentCard } from '@fleet/a2a';
import { buildAgentCard } from '@fleet/a2a/server';
import { withAvailability } from '@fleet/agent-kit';

/** The mail agent's version, as its Agent Card states it. */
export const MAIL_AGENT_VERSION = '0.1.0';

/** The skills on the mail agent's card: one per action. */
export const MAIL_SKILLS = {
  search: 'search',
  send: 'send',
  reply: 'reply',
  draft: 'draft',
  read: 'read',
} as const;
export type MailSkill = (typeof MAIL_SKILLS)[keyof typeof MAIL_SKILLS];

/** Options for {@link buildMailCard}. */
export interface BuildMailCardOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8085`. */
  url: string;
  /** Declares the fleet's bearer scheme; set when `/a2a` needs FLEET_INTERNAL_TOKEN. @default true */
  internalToken?: boolean;
  /**
   * What the configured account allows (`mailAvailability`), declared with the card's availability
   * extension. Absent: the card does not say.
   */
  availability?: AgentAvailability | undefined;
}

const INPUT =
  'Send the task as a text part, with the fleet node input data part { fleet: { … } } (optional).';
const MODES = {
  inputModes: ['text/plain', 'application/json'],
  outputModes: ['text/plain', 'application/json'],
};

/**
 * The mail agent's Agent Card: name `mail-agent`, streaming, skills `search`, `send`, `reply`
 * (these two wait for a person's approval), `draft` and `read`, the internal-token scheme, and
 * the availability extension when `availability` is given.
 *
 * @example
 * const card = buildMailCard({ url: 'http://127.0.0.1:8085' });
 */
export function buildMailCard({
  url,
  internalToken = true,
  availability,
}: BuildMailCardOptions): AgentCard {
  const card = buildAgentCard({
    name: 'mail-agent',
    description:
      "Works on the user's own e-mail account over IMAP and SMTP (Gmail with OAuth2, or any mail server): searches the inbox, sent mail and drafts, reads messages and reports them with [n] citations, saves drafts, sends new mail and replies in the original thread. Sending and replying always show the full message (from, to, cc, subject, body) for a person's approval first; a denied mail is never sent.",
    version: MAIL_AGENT_VERSION,
    url,
    streaming: true,
    internalToken,
    skills: [
      {
        id: MAIL_SKILLS.search,
        name: 'Search mail',
        description: `Searches the inbox, sent mail or drafts for messages with a server-side search (sender, recipient, subject, words, dates, unread) and reports them with [n] citations. ${INPUT} The artifact "result": a text part (the answer) and a data part { action: "search", folder, mailbox, total, messages: [{ uid, messageId, from, to, cc, subject, date, snippet }], sources }.`,
        tags: ['mail', 'email', 'inbox', 'search', 'imap', 'gmail'],
        examples: [
          'Search my inbox for emails from bob about the invoice',
          'Which unread emails came in since yesterday?',
          'What did I send to alice last week?',
          'Check my drafts for the quarterly report',
          'Look through my mailbox for the offsite emails',
        ],
        ...MODES,
      },
      {
        id: MAIL_SKILLS.send,
        name: 'Send a mail (needs approval)',
        description: `Writes a new mail (using earlier steps' results, e.g. a report or analysis) and sends it over SMTP after a person approves the full message; denied mail is not sent, approved mail is sent exactly once and filed in Sent. ${INPUT} The artifact "result": a data part { action: "send", mail, sent, messageId, accepted, rejected }.`,
        tags: ['mail', 'email', 'send', 'notify', 'smtp', 'approval'],
        examples: [
          'Email the report to my manager at boss@example.com',
          'Send bob@example.com a mail saying the deploy is done',
          'Mail the analysis results to team@example.com',
        ],
        ...MODES,
      },
      {
        id: MAIL_SKILLS.reply,
        name: 'Reply to a mail (needs approval)',
        description: `Replies to a message in its thread (In-Reply-To and References set) after a person approves the full reply; the message is found by uid or as the newest match of sender/subject/words. ${INPUT} The artifact "result": a data part { action: "reply", mail, sent, messageId, accepted, rejected }.`,
        tags: ['mail', 'email', 'reply', 'respond', 'thread', 'smtp', 'approval'],
        examples: [
          'Reply to the latest email from carol@example.com saying I will join',
          'Respond to the offsite mail and confirm that I will come',
        ],
        ...MODES,
      },
      {
        id: MAIL_SKILLS.draft,
        name: 'Draft a mail',
        description: `Writes a mail and saves it in the Drafts mailbox; nothing is sent, so no approval is needed. ${INPUT} The artifact "result": a data part { action: "draft", mail: { from, to, cc, subject, text }, mailbox, uid, messageId }.`,
        tags: ['email', 'draft', 'compose', 'write'],
        examples: [
          'Draft an email to dave@example.com about moving the meeting to Friday',
          'Prepare a draft to the team about the new office hours',
        ],
        ...MODES,
      },
      {
        id: MAIL_SKILLS.read,
        name: 'Read a mail',
        description: `Opens one message (by uid from an earlier search, or the newest one matching sender/subject/words) and returns its full text. ${INPUT} The artifact "result": a text part (headers and body) and a data part { action: "read", message: { uid, messageId, from, to, cc, subject, date, text, references } }.`,
        tags: ['email', 'read', 'open', 'imap'],
        examples: [
          'Read the latest email from carol@example.com',
          'Open the mail about the offsite',
        ],
        ...MODES,
      },
    ],
  });
  return availability === undefined ? card : withAvailability(card, availability);
}
