import { FleetError, ValidationError } from '@fleet/errors';
import { latestReview, type Session } from '@fleet/sessions';
import { resumeFollowed } from './ask-decision';
import type { AskScope } from './ask-scope';
import {
  reviewDecisionOfForm,
  reviewFormSchema,
  type FormReply,
  type Pause,
  type PauseNext,
} from './pause-forms';

/** The session's review `reviewId` as a form asks it, while it waits for a decision. */
export function reviewInSession(session: Session, reviewId: string): Pause | undefined {
  const review = session.approvals[reviewId];
  if (review?.kind !== 'review' || review.status !== 'pending' || review.review === undefined) {
    return undefined;
  }
  return {
    kind: 'review',
    id: review.id,
    round: review.review.round,
    answer: review.review.answer,
    steps: review.review.steps,
    expiresAt: review.expiresAt,
  };
}

/**
 * What a reply to the review form comes to. Accepted, the decision is checked and recorded as
 * `POST /v1/sessions/{id}/review` records it, for the review the form asked about only (a newer
 * round is never decided with an older round's form), and the session is resumed if nothing runs
 * it; a form that does not make a decision (`replan` without feedback, a step the plan does not
 * have) is asked again. Declined or cancelled, the run waits as it stands.
 */
export async function reviewReplied(
  { deps, caller }: AskScope,
  { sessionId, pause, reply }: { sessionId: string; pause: Pause; reply: FormReply },
): Promise<PauseNext> {
  if (reply === 'settled') return { kind: 'follow', answers: 'none' };
  if (reply.action !== 'accept') return { kind: 'stay' };
  const form = reviewFormSchema.safeParse(reply.content);
  if (!form.success) {
    return { kind: 'again', note: 'The decision was not taken: choose one of the decisions.' };
  }
  const chosen = reviewDecisionOfForm(form.data);
  if ('invalid' in chosen) {
    return { kind: 'again', note: `The decision was not taken: ${chosen.invalid}.` };
  }
  const { sessions } = deps;
  const { tenant } = caller;
  const session = await sessions.getForTenant(sessionId, tenant);
  const latest = latestReview(session);
  if (latest?.id !== pause.id || latest.status !== 'pending') {
    return { kind: 'follow', answers: 'none' };
  }
  try {
    await sessions.decideReview({ sessionId, tenant, decision: chosen.decision });
  } catch (error) {
    if (error instanceof ValidationError) {
      return { kind: 'again', note: `The decision was not taken: ${error.message}` };
    }
    // Decided elsewhere meanwhile, or timed out: the run goes on as it stands.
    if (!(FleetError.isInstance(error) && error.status === 409)) throw error;
  }
  resumeFollowed({ deps, caller }, sessionId);
  return { kind: 'follow', answers: 'none' };
}
