import { z } from 'zod';
import type { Approval, Session } from '@fleet/sessions';
import { sessionRecords } from './session-views';

/** Longest answer a person may give to an agent's question, in characters (after trimming). */
export const MAX_ANSWER_CHARS = 16_000;

/** An answer's text: trimmed, 1–{@link MAX_ANSWER_CHARS} characters. */
export const answerTextSchema = z
  .string({ error: 'text is required and must be a string' })
  .trim()
  .min(1, 'text must not be empty')
  .max(MAX_ANSWER_CHARS, `text must be at most ${MAX_ANSWER_CHARS} characters`);

/** The body of `POST /v1/sessions/{id}/inputs/{input_id}`. */
export const inputAnswerBodySchema = z.strictObject({ text: answerTextSchema });

/**
 * The question a chat message answers (`X-Session-ID`): the session's oldest question still
 * pending and not past its expiry (an overdue one can no longer be answered; the store marks it
 * `expired` when it is next touched). Undefined when no question waits.
 */
export function oldestAnswerableInput(session: Session, now = new Date()): Approval | undefined {
  return sessionRecords(session, 'inputs').find((input) => isAnswerable(input, now));
}

/** The session's question `inputId` while it can be answered (pending, not past its expiry). */
export function answerableInput(
  session: Session,
  inputId: string,
  now = new Date(),
): Approval | undefined {
  const input = session.approvals[inputId];
  return input?.kind === 'input' && isAnswerable(input, now) ? input : undefined;
}

/** Whether a question is still pending and not past its expiry. */
function isAnswerable(input: Approval, now: Date): boolean {
  if (input.status !== 'pending') return false;
  const expires = Date.parse(input.expiresAt);
  // An unreadable expiry never expires, as in the store.
  return Number.isNaN(expires) || expires > now.getTime();
}
