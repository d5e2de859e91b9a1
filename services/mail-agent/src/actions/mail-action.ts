import { z } from 'zod';
import { mailFolderSchema } from '../mail';

/** The actions the mail agent can take. `send` and `reply` need a person's approval. */
export const MAIL_ACTIONS = ['search', 'read', 'draft', 'send', 'reply'] as const;
export type MailActionName = (typeof MAIL_ACTIONS)[number];

/**
 * What a task asks the mail agent to do, chosen by the LLM (structured output) or by the offline
 * rules. One flat shape for every action, so strict structured output can describe it.
 */
export const mailActionSchema = z.object({
  action: z
    .enum(MAIL_ACTIONS)
    .describe(
      'search: find messages; read: open one message; draft: save a draft (nothing is sent); send: send a new mail; reply: answer a message in its thread.',
    ),
  folder: mailFolderSchema
    .default('inbox')
    .describe('Where to search or which message to read/reply to: inbox, sent or drafts.'),
  from: z.string().optional().describe('Search: sender name or address contains this.'),
  toContains: z.string().optional().describe('Search: a recipient contains this.'),
  subject: z.string().optional().describe('Search: the subject contains this.'),
  text: z.string().optional().describe('Search: headers or body contain this (one short phrase).'),
  since: z.string().optional().describe('Search: received on or after this date (YYYY-MM-DD).'),
  before: z.string().optional().describe('Search: received before this date (YYYY-MM-DD).'),
  unseen: z.boolean().optional().describe('Search: only unread messages.'),
  uid: z
    .number()
    .int()
    .optional()
    .describe('Read/reply: the UID of the message (from an earlier search), if known.'),
  to: z.array(z.string()).default([]).describe('Send/draft: recipient addresses.'),
  cc: z.array(z.string()).default([]).describe('Send/draft/reply: Cc addresses.'),
  mailSubject: z.string().optional().describe('Send/draft: the subject of the new mail.'),
  body: z
    .string()
    .optional()
    .describe('Send/draft/reply: the full plain-text body, greeting and sign-off included.'),
  replyAll: z.boolean().optional().describe('Reply: also to the other recipients.'),
});
export type MailAction = z.infer<typeof mailActionSchema>;

/**
 * The search criteria of an action (the fields that narrow a search, read or reply target).
 *
 * @example
 * actionCriteria({ action: 'search', folder: 'inbox', from: 'bob', to: [], cc: [] }); // { from: 'bob' }
 */
export function actionCriteria(action: MailAction): {
  from?: string;
  to?: string;
  subject?: string;
  text?: string;
  since?: string;
  before?: string;
  unseen?: boolean;
} {
  return {
    ...(action.from === undefined ? {} : { from: action.from }),
    ...(action.toContains === undefined ? {} : { to: action.toContains }),
    ...(action.subject === undefined ? {} : { subject: action.subject }),
    ...(action.text === undefined ? {} : { text: action.text }),
    ...(action.since === undefined ? {} : { since: action.since }),
    ...(action.before === undefined ? {} : { before: action.before }),
    ...(action.unseen === undefined ? {} : { unseen: action.unseen }),
  };
}
