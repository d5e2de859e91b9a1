import { useState } from 'preact/hooks';
import { api, type ReviewDecisionKind, type ReviewStep, type ReviewView } from '../api';
import { decisionWords, formatTime, fromNow } from '../format';
import { useAction } from '../hooks';
import { AnswerText } from './answer-text';
import { ErrorNote } from './error-note';
import { StatusBadge } from './status-badge';

/** Characters of feedback a decision carries (the API's limit). */
const FEEDBACK_LIMIT = 4000;

/** The buttons of a pending review, in order. */
const DECISIONS: { decision: ReviewDecisionKind; label: string }[] = [
  { decision: 'approve', label: 'Approve' },
  { decision: 'revise', label: 'Revise selected steps' },
  { decision: 'replan', label: 'Re-plan' },
  { decision: 'recompose', label: 'Rewrite the answer' },
];

/** The body of `POST /v1/sessions/{id}/review`, or what is missing for it in words. */
function decisionBody(
  decision: ReviewDecisionKind,
  steps: readonly string[],
  feedback: string,
): { body: Record<string, unknown> } | { problem: string } {
  if (decision === 'revise' && steps.length === 0) {
    return { problem: 'Select the steps to run again.' };
  }
  if ((decision === 'revise' || decision === 'replan') && feedback === '') {
    return { problem: 'Say what to change in the feedback.' };
  }
  return {
    body: {
      decision,
      ...(decision === 'revise' ? { steps } : {}),
      ...(feedback === '' || decision === 'approve' ? {} : { feedback }),
    },
  };
}

/** One step's result as the review shows it: its agent and state, its answer or error. */
function StepResult({ step }: { step: ReviewStep }) {
  return (
    <>
      <strong>{step.id}</strong> <small>({step.agent})</small> <StatusBadge state={step.state} />
      {step.added === true ? <span class="badge badge-added">added</span> : null}
      {step.summary === undefined ? null : <p class="review-step-summary">{step.summary}</p>}
      {step.error === undefined ? null : <p class="error-note">{step.error}</p>}
    </>
  );
}

/** The pending review's heading, expiry and the answer not yet sent. */
function PendingReviewHeader({
  review,
  names,
}: {
  review: ReviewView;
  names: ReadonlyMap<string, string>;
}) {
  return (
    <>
      <header>
        <h3 id="review-now">Review the answer (round {review.round})</h3>
        <p>
          <StatusBadge state={review.status} /> · expires{' '}
          <time dateTime={review.expiresAt} title={formatTime(review.expiresAt)}>
            {fromNow(review.expiresAt)}
          </time>
        </p>
      </header>
      <p>
        <strong>The answer, not yet sent:</strong>
      </p>
      <div class="answer review-answer">
        <AnswerText text={review.answer} names={names} />
      </div>
    </>
  );
}

/** The review's steps, each with its result and a checkbox to run it again. */
function StepChoices({
  steps,
  selected,
  setSelected,
}: {
  steps: readonly ReviewStep[];
  /** The ids of the steps chosen to run again. */
  selected: readonly string[];
  setSelected: (update: (now: string[]) => string[]) => void;
}) {
  return (
    <fieldset>
      <legend>Steps (select the ones to run again)</legend>
      <ul class="review-steps">
        {steps.map((step) => (
          <li key={step.id} data-step-id={step.id}>
            <label>
              <input
                type="checkbox"
                name="review-step"
                value={step.id}
                checked={selected.includes(step.id)}
                aria-label={`Run step ${step.id} again`}
                onChange={(event) => {
                  const checked = event.currentTarget.checked;
                  setSelected((now) =>
                    checked
                      ? [...now.filter((id) => id !== step.id), step.id]
                      : now.filter((id) => id !== step.id),
                  );
                }}
              />
              <StepResult step={step} />
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

/** The review waiting for a decision: the answer, each step with a checkbox, feedback, buttons. */
function PendingReview({
  sessionId,
  review,
  names,
  onDecided,
}: {
  sessionId: string;
  review: ReviewView;
  names: ReadonlyMap<string, string>;
  onDecided: () => void;
}) {
  const [selected, setSelected] = useState<string[]>([]);
  const [feedback, setFeedback] = useState('');
  const [chosen, setChosen] = useState<ReviewDecisionKind | undefined>(undefined);
  const action = useAction();
  const feedbackId = `review-${review.id}-feedback`;

  const decide = async (decision: ReviewDecisionKind): Promise<void> => {
    setChosen(decision);
    const steps = review.steps.map((step) => step.id).filter((id) => selected.includes(id));
    const built = decisionBody(decision, steps, feedback.trim());
    if ('problem' in built) {
      action.setError(built.problem);
      return;
    }
    const path = `/sessions/${encodeURIComponent(sessionId)}/review`;
    if (await action.run(() => api(path, { method: 'POST', json: built.body }))) {
      setSelected([]);
      setFeedback('');
      onDecided();
    }
  };

  return (
    <article class="review review-pending" data-review-id={review.id} aria-labelledby="review-now">
      <PendingReviewHeader review={review} names={names} />
      <form
        onSubmit={(event) => {
          event.preventDefault();
        }}
      >
        <StepChoices steps={review.steps} selected={selected} setSelected={setSelected} />
        <label for={feedbackId}>
          Feedback (what to change: needed to revise steps or re-plan, optional to rewrite)
        </label>
        <textarea
          id={feedbackId}
          rows={3}
          maxLength={FEEDBACK_LIMIT}
          value={feedback}
          onInput={(event) => setFeedback(event.currentTarget.value)}
        />
        <ErrorNote message={action.error} />
        <div class="decision-buttons" role="group" aria-label="Review decision">
          {DECISIONS.map(({ decision, label }, index) => (
            <button
              key={decision}
              type="button"
              class={index === 0 ? undefined : 'secondary'}
              aria-busy={action.busy && chosen === decision}
              disabled={action.busy}
              onClick={() => void decide(decision)}
            >
              {label}
            </button>
          ))}
        </div>
      </form>
    </article>
  );
}

/** A decided round in words: its decision, the steps it re-ran or kept, its feedback. */
function PastRound({ review }: { review: ReviewView }) {
  return (
    <li class="review-round" data-review-id={review.id} data-round={review.round}>
      <strong>Round {review.round}</strong>: <StatusBadge state={review.status} />
      {review.decision === undefined ? null : <> · {decisionWords(review.decision)}</>}
      {review.timedOut === true ? <> · timed out (nobody decided in time)</> : null}
      {review.decidedAt === undefined ? null : <> · {formatTime(review.decidedAt)}</>}
      {review.targets === undefined || review.targets.length === 0 ? null : (
        <p>Steps named: {review.targets.join(', ')}</p>
      )}
      {review.rerun === undefined || review.rerun.length === 0 ? null : (
        <p>Steps re-run: {review.rerun.join(', ')}</p>
      )}
      {review.kept === undefined || review.kept.length === 0 ? null : (
        <p>Kept (their approved action was carried out): {review.kept.join(', ')}</p>
      )}
      {review.feedback === undefined ? null : <p>Feedback: {review.feedback}</p>}
      <details>
        <summary>The answer of round {review.round}</summary>
        <p class="review-answer-text">{review.answer}</p>
      </details>
    </li>
  );
}

/**
 * The answer's review (`X-Result-Review: required`): the round waiting for a decision, with each
 * step's result to select for a revision, and every earlier round below.
 */
export function ReviewSection({
  sessionId,
  reviews,
  names,
  onDecided,
}: {
  sessionId: string;
  reviews: readonly ReviewView[];
  names: ReadonlyMap<string, string>;
  onDecided: () => void;
}) {
  if (reviews.length === 0) return null;
  const pending = reviews.filter((review) => review.status === 'pending').at(-1);
  const past = reviews.filter((review) => review !== pending);
  return (
    <section aria-labelledby="review-title" class="reviews">
      <h2 id="review-title">Review</h2>
      {pending === undefined ? null : (
        <PendingReview
          key={pending.id}
          sessionId={sessionId}
          review={pending}
          names={names}
          onDecided={onDecided}
        />
      )}
      {past.length === 0 ? null : (
        <>
          <h3>Earlier rounds</h3>
          <ol class="review-rounds">
            {past.map((review) => (
              <PastRound key={review.id} review={review} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
