import { z } from 'zod';
import type { ChosenAction } from '../actions';
import {
  fullMessageSchema,
  mailFolderSchema,
  messageSummarySchema,
  outgoingMailSchema,
  type MessageSummary,
} from '../mail';

/** A source a result's `[n]` markers point at: one per message (`[n]` = `sources[n - 1]`). */
export const mailSourceSchema = z.object({
  title: z.string(),
  snippet: z.string().optional(),
});

export type MailSource = z.infer<typeof mailSourceSchema>;

/**
 * The source a message is cited as: subject, sender and day, and its snippet.
 *
 * @example
 * mailSource(message); // { title: 'Invoice 4711 — Bob <bob@example.test>, 2026-03-02', snippet: '…' }
 */
export function mailSource(message: MessageSummary): MailSource {
  const date = message.date?.slice(0, 10);
  return {
    title: `${message.subject || '(no subject)'} — ${message.from || 'unknown sender'}${date === undefined ? '' : `, ${date}`}`,
    ...(message.snippet === '' ? {} : { snippet: message.snippet }),
  };
}

/** How the action was chosen, on every result. */
const chosenSchema = z.object({
  chosenBy: z.enum(['llm', 'rules']),
  llmError: z.string().optional(),
});
type ChosenData = z.infer<typeof chosenSchema>;

/**
 * The fields of a result that say how its action was chosen.
 *
 * @example
 * const data: ReadResultData = { action: 'read', message, sources, ...chosenData(chosen) };
 */
export function chosenData(chosen: ChosenAction): ChosenData {
  return {
    chosenBy: chosen.chosenBy,
    ...(chosen.llmError === undefined ? {} : { llmError: chosen.llmError }),
  };
}

/** The data part of the `result` artifact of a search. */
export const searchResultDataSchema = chosenSchema.extend({
  action: z.literal('search'),
  folder: mailFolderSchema,
  mailbox: z.string(),
  criteria: z.record(z.string(), z.unknown()),
  /** How many messages matched; `messages` holds the newest of them. */
  total: z.number().int(),
  messages: z.array(messageSummarySchema),
  sources: z.array(mailSourceSchema),
  summarisedBy: z.enum(['llm', 'list']),
});
export type SearchResultData = z.infer<typeof searchResultDataSchema>;

/** The data part of the `result` artifact of a read. */
export const readResultDataSchema = chosenSchema.extend({
  action: z.literal('read'),
  message: fullMessageSchema,
  sources: z.array(mailSourceSchema),
});
export type ReadResultData = z.infer<typeof readResultDataSchema>;

/** The data part of the `result` artifact of a saved draft. */
export const draftResultDataSchema = chosenSchema.extend({
  action: z.literal('draft'),
  mail: outgoingMailSchema,
  mailbox: z.string(),
  uid: z.number().int().optional(),
  messageId: z.string(),
});
export type DraftResultData = z.infer<typeof draftResultDataSchema>;

/** The data part of the `result` artifact of an approved send or reply. */
export const sendResultDataSchema = z.object({
  action: z.enum(['send', 'reply']),
  mail: outgoingMailSchema,
  /** False when an earlier attempt of this task had already claimed the send: nothing was sent now. */
  sent: z.boolean(),
  messageId: z.string().optional(),
  accepted: z.array(z.string()).default([]),
  rejected: z.array(z.string()).default([]),
  /** Where the copy was filed, when one was (MAIL_SAVE_SENT_COPY). */
  savedTo: z.object({ mailbox: z.string(), uid: z.number().int().optional() }).optional(),
  /** Why filing the copy failed (the mail was sent). */
  saveError: z.string().optional(),
});
export type SendResultData = z.infer<typeof sendResultDataSchema>;

/**
 * The mail waiting for approval: a data part of the AUTH_REQUIRED status message, beside the
 * fleet's `{ approval }` part. The continuation finds it in the task's history (Redis), so any
 * replica, or a restarted one, sends exactly what was approved.
 */
export const pendingMailSchema = z.object({
  pendingMail: z.object({
    action: z.enum(['send', 'reply']),
    mail: outgoingMailSchema,
    /** The task the mail was written for. */
    task: z.string(),
    expiresAt: z.string(),
  }),
});
export type PendingMail = z.infer<typeof pendingMailSchema>['pendingMail'];
