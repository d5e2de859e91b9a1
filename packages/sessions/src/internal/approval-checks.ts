import type { ApprovalStatus, ReviewDecision } from '@fleet/a2a';
import { ConflictError, NotFoundError, ValidationError } from '@fleet/errors';
import { latestReview, type Approval, type Session } from '../session-schema';

/** The one answer for a missing, expired or foreign session, so none can be told apart. */
export function sessionNotFound(id: string): NotFoundError {
  return new NotFoundError(`Session ${id} does not exist or has expired.`);
}

/**
 * The approval (or, for `what: 'input'`, the question) if it is still pending: a question is not
 * an approval and the other way round. @throws NotFoundError / ConflictError otherwise
 */
export function pendingCheck(session: Session, id: string, what: 'approval' | 'input'): Approval {
  const approval = session.approvals[id];
  const noun = what === 'input' ? 'Question' : 'Approval';
  if (
    approval === undefined ||
    approval.kind === 'review' ||
    (approval.kind === 'input') !== (what === 'input')
  ) {
    throw new NotFoundError(`${noun} ${id} does not exist in session ${session.id}.`);
  }
  if (approval.status !== 'pending') throw approvalSettled(noun, id, approval.status);
  return approval;
}

/**
 * The session's pending review (its newest approval of kind `review`).
 * @throws ConflictError when there is none: never asked, or decided or expired already
 */
export function pendingReview(session: Session): Approval {
  const latest = latestReview(session);
  if (latest === undefined) {
    throw new ConflictError(
      `Session ${session.id} is not waiting for a review: it was not started with one.`,
      {
        details: { status: session.status },
      },
    );
  }
  if (latest.status !== 'pending') {
    const word =
      latest.status === 'expired' || latest.status === 'timed_out'
        ? 'timed out'
        : 'was already decided';
    throw new ConflictError(
      `Session ${session.id} is not waiting for a review: its latest review ${word}.`,
      { details: { status: latest.status } },
    );
  }
  return latest;
}

/**
 * Every step a `revise` names is a step of the session's plan.
 * @throws ValidationError naming the unknown steps and the plan's steps
 */
export function checkReviewSteps(session: Session, decision: ReviewDecision): void {
  if (decision.steps === undefined) return;
  const known = (session.plan?.nodes ?? []).map((node) => node.id);
  const unknown = decision.steps.filter((step) => !known.includes(step));
  if (unknown.length === 0) return;
  throw new ValidationError(
    `The plan has no step ${unknown.map((step) => `"${step}"`).join(', ')}: its steps are ${known.map((step) => `"${step}"`).join(', ') || 'none'}.`,
    {
      details: {
        issues: [{ path: 'steps', message: `unknown steps: ${unknown.join(', ')}` }],
        steps: known,
      },
    },
  );
}

/** The conflict of deciding an approval (or answering a question) that is no longer pending. */
export function approvalSettled(noun: string, id: string, status: ApprovalStatus): ConflictError {
  const state = status === 'expired' || status === 'timed_out' ? 'has' : 'was already';
  const word = status === 'timed_out' ? 'timed out' : status;
  return new ConflictError(`${noun} ${id} ${state} ${word}.`, { details: { status } });
}

/** True when a pending approval can no longer be decided. An unreadable expiry never expires. */
export function isOverdue(approval: Approval, now: Date): boolean {
  const expiresAt = Date.parse(approval.expiresAt);
  return !Number.isNaN(expiresAt) && expiresAt <= now.getTime();
}
