import type { Session } from '@fleet/sessions';
import { answerableInput } from '../sessions';
import type { AskScope } from './ask-scope';
import {
  MAX_FORM_ANSWER,
  questionFormSchema,
  type FormReply,
  type Pause,
  type PauseNext,
} from './pause-forms';

/** The session's question `inputId` as a form asks it, while it waits for an answer. */
export function questionInSession(session: Session, inputId: string): Pause | undefined {
  const input = answerableInput(session, inputId);
  if (input === undefined) return undefined;
  return {
    kind: 'question',
    id: input.id,
    nodeId: input.nodeId,
    agent: input.agent,
    question: input.preview,
    expiresAt: input.expiresAt,
  };
}

/**
 * What a reply to the question form comes to. Accepted, the answer goes to the question the form
 * asked, as `ask` with `session_id` and the answer as `question` gives it, while that question
 * still waits: one answered elsewhere meanwhile is followed on without an answer, so an answer
 * never reaches a later question. Declined or cancelled, the run
 * waits as it stands.
 */
export async function questionReplied(
  { deps, caller }: AskScope,
  { sessionId, pause, reply }: { sessionId: string; pause: Pause; reply: FormReply },
): Promise<PauseNext> {
  if (reply === 'settled') return { kind: 'follow', answers: 'none' };
  if (reply.action !== 'accept') return { kind: 'stay' };
  const form = questionFormSchema.safeParse(reply.content);
  if (!form.success) {
    return {
      kind: 'again',
      note: `The answer was not taken: it must be 1–${MAX_FORM_ANSWER} characters.`,
    };
  }
  const session = await deps.sessions.getForTenant(sessionId, caller.tenant);
  if (answerableInput(session, pause.id) === undefined) return { kind: 'follow', answers: 'none' };
  return { kind: 'follow', answer: form.data.answer, answers: { inputId: pause.id } };
}
