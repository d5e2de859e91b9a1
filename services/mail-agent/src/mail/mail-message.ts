import { z } from 'zod';

/** The mailboxes a task can name: the inbox, sent mail and drafts. */
export const mailFolderSchema = z.enum(['inbox', 'sent', 'drafts']);
export type MailFolder = z.infer<typeof mailFolderSchema>;

/** A message as a search reports it. */
export const messageSummarySchema = z.object({
  /** The folder searched and its IMAP name. */
  folder: mailFolderSchema,
  mailbox: z.string(),
  /** The IMAP UID within `mailbox`. */
  uid: z.number().int(),
  /** The Message-ID header, with its angle brackets. */
  messageId: z.string().optional(),
  from: z.string(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  subject: z.string(),
  /** ISO time the message was written (Date header), else when the server received it. */
  date: z.string().optional(),
  /** The start of the plain-text body. */
  snippet: z.string(),
});
export type MessageSummary = z.infer<typeof messageSummarySchema>;

/** A message as `read` reports it: the summary, the body and the thread headers. */
export const fullMessageSchema = messageSummarySchema.extend({
  /** The plain-text body (from the HTML part when there is no text part). */
  text: z.string(),
  /** The address replies go to (Reply-To, else From). */
  replyTo: z.string(),
  inReplyTo: z.string().optional(),
  references: z.array(z.string()),
});
export type FullMessage = z.infer<typeof fullMessageSchema>;

/** A mail the agent writes: what the approval shows and what is sent, exactly. */
export const outgoingMailSchema = z.object({
  from: z.string().min(1),
  to: z.array(z.string().min(1)).min(1),
  cc: z.array(z.string().min(1)).default([]),
  subject: z.string(),
  text: z.string(),
  /** Set for replies: the Message-ID answered. */
  inReplyTo: z.string().optional(),
  /** Set for replies: the thread's Message-IDs, oldest first, ending with `inReplyTo`. */
  references: z.array(z.string()).default([]),
});
export type OutgoingMail = z.infer<typeof outgoingMailSchema>;

/** What a mailbox search looks for; every criterion set must match (IMAP SEARCH, server-side). */
export const searchCriteriaSchema = z.object({
  from: z.string().optional(),
  to: z.string().optional(),
  subject: z.string().optional(),
  /** Anywhere in the headers or the body. */
  text: z.string().optional(),
  /** ISO date: received on or after. */
  since: z.string().optional(),
  /** ISO date: received before. */
  before: z.string().optional(),
  unseen: z.boolean().optional(),
});
export type SearchCriteria = z.infer<typeof searchCriteriaSchema>;
