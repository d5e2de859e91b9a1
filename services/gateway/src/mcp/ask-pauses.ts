import type { ServerContext } from '@modelcontextprotocol/server';
import type { QuestionAnswered } from '../sessions';
import type { Followed } from './ask-answer';
import { MAX_PROGRESS_LINES } from './ask-follow';
import { elicitPause } from './ask-pause-elicitation';
import { questionReplied } from './ask-question';
import { reviewReplied } from './ask-review';
import type { AskScope } from './ask-scope';
import type { FormReply, Pause, PauseNext } from './pause-forms';

/** Most forms one 2025-era call asks about questions and reviews (a form asked again included). */
export const MAX_PAUSE_ROUNDS = 10;

/** What a reply to a pause's form comes to (a question's answer, a review's decision). */
export function pauseReplied(
  scope: AskScope,
  replied: { sessionId: string; pause: Pause; reply: FormReply },
): Promise<PauseNext> {
  return replied.pause.kind === 'question'
    ? questionReplied(scope, replied)
    : reviewReplied(scope, replied);
}

/** Follows the session on after a reply: what was followed. */
export type FollowOn = (resume: {
  sessionId: string;
  /** The message that answers the question `answers` names; undefined: the call's question. */
  answer?: string | undefined;
  answers: QuestionAnswered;
}) => Promise<Followed>;

/** Two runs followed one after the other, as one. */
function joined(before: Followed, after: Followed): Followed {
  return {
    ...after,
    lines: [...before.lines, ...after.lines].slice(-MAX_PROGRESS_LINES),
    sessionId: after.sessionId ?? before.sessionId,
  };
}

/**
 * For a 2025-era client that declared elicitation: while the followed run stops at a question or
 * a review, asks its form, gives the answer or the decision, and follows the run on (to its end,
 * an approval asked as the run goes, or the next question or review), at most
 * {@link MAX_PAUSE_ROUNDS} forms. Declined or cancelled, or past the bound, the call answers as
 * the run stands (`waiting_input`, `waiting_review`, and how to continue).
 */
export async function askPausesByElicitation(
  scope: AskScope,
  ctx: ServerContext,
  { followed, followOn }: { followed: Followed; followOn: FollowOn },
): Promise<Followed> {
  let current = followed;
  let note: string | undefined;
  for (let round = 0; round < MAX_PAUSE_ROUNDS; round += 1) {
    const pause = current.paused?.asked;
    const sessionId = current.sessionId;
    if (pause === undefined || sessionId === undefined) break;
    const reply = await elicitPause(scope, ctx, { sessionId, pause, note });
    const next = await pauseReplied(scope, { sessionId, pause, reply });
    if (next.kind === 'stay') break;
    if (next.kind === 'again') {
      note = next.note;
      continue;
    }
    note = undefined;
    current = joined(
      current,
      await followOn({ sessionId, answer: next.answer, answers: next.answers }),
    );
  }
  return current;
}
