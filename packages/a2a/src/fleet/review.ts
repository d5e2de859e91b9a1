import { z } from 'zod';
import { planNodeIdSchema } from './plan';

/** Longest feedback a review decision carries, in characters. */
export const MAX_REVIEW_FEEDBACK = 4000;

/** Longest answer a review round keeps and shows, in characters (a longer one is cut, with `…`). */
export const MAX_REVIEW_ANSWER = 100_000;

/** Longest step result a review round shows, in characters (a longer one is cut, with `…`). */
export const MAX_REVIEW_STEP_SUMMARY = 4000;

/** How many rounds a run may be reviewed, unless the orchestrator is told otherwise. */
export const DEFAULT_MAX_REVIEW_ROUNDS = 10;

/**
 * Whether a run pauses after composing for a person to review the answer (`X-Result-Review`, the
 * body field `fleet_result_review`): `required` or `none`.
 */
export const resultReviewSchema = z.enum(['required', 'none']);
export type ResultReview = z.infer<typeof resultReviewSchema>;

/**
 * What a person decides about a composed answer:
 * - `approve`: the answer stands and is sent.
 * - `revise`: the named `steps` run again with the `feedback`, and so do the steps that depend on
 *   them; the other steps keep their results (a step whose approved action was carried out is
 *   never redone unless it is named itself); then the answer is composed again.
 * - `replan`: the planner plans again with the feedback and what the run did so far; steps the new
 *   plan keeps unchanged keep their results.
 * - `recompose`: only the answer is written again, with the feedback.
 */
export const reviewDecisionKindSchema = z.enum(['approve', 'revise', 'replan', 'recompose']);
export type ReviewDecisionKind = z.infer<typeof reviewDecisionKindSchema>;

/**
 * The body of `POST /v1/sessions/{id}/review`: `{ decision, steps?, feedback? }`. `revise` needs
 * `steps` (1–32 step ids) and `feedback`; `replan` needs `feedback`; `recompose` takes feedback if
 * given; `steps` go with `revise` only.
 */
export const reviewDecisionSchema = z
  .strictObject({
    decision: reviewDecisionKindSchema,
    steps: z
      .array(planNodeIdSchema)
      .min(1, 'steps names at least one step')
      .max(32, 'steps names at most 32 steps')
      .optional(),
    feedback: z
      .string()
      .trim()
      .max(MAX_REVIEW_FEEDBACK, `feedback has at most ${MAX_REVIEW_FEEDBACK} characters`)
      .optional(),
  })
  .superRefine((body, context) => {
    const feedback = (body.feedback ?? '') !== '';
    if (body.decision === 'revise' && body.steps === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['steps'],
        message: "a 'revise' decision names the steps to run again",
      });
    }
    if ((body.decision === 'revise' || body.decision === 'replan') && !feedback) {
      context.addIssue({
        code: 'custom',
        path: ['feedback'],
        message: `a '${body.decision}' decision says what to change (feedback)`,
      });
    }
    if (body.decision !== 'revise' && body.steps !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['steps'],
        message: `steps go with a 'revise' decision only, not '${body.decision}'`,
      });
    }
  });
export type ReviewDecision = z.infer<typeof reviewDecisionSchema>;

/** One step's result as a review round shows it. */
export const reviewStepSchema = z.object({
  id: z.string(),
  agent: z.string(),
  state: z.string(),
  /** The step's answer text, cut at {@link MAX_REVIEW_STEP_SUMMARY}. */
  summary: z.string().optional(),
  error: z.string().optional(),
  /** True for a step added while the run went (a hand-off, a re-plan after a failure). */
  added: z.boolean().optional(),
});
export type ReviewStep = z.infer<typeof reviewStepSchema>;

/**
 * One round of a result review, kept with its approval (kind `review`) in the session: the
 * answer put up for review, each step's result, and once decided what was decided and what it
 * re-ran.
 */
export const reviewRoundSchema = z.object({
  /** 1 for the first answer, 2 after the first revision, … */
  round: z.number().int().min(1),
  answer: z.string(),
  steps: z.array(reviewStepSchema),
  decision: reviewDecisionKindSchema.optional(),
  /** The steps a `revise` named. */
  targets: z.array(z.string()).optional(),
  feedback: z.string().optional(),
  /** The steps that ran again for this decision (the targets and their dependents). */
  rerun: z.array(z.string()).optional(),
  /** Dependents of a target that were not run again: their approved action was carried out. */
  kept: z.array(z.string()).optional(),
  /** True when nobody decided in time and the time-out decided (`decision` says what). */
  timedOut: z.boolean().optional(),
});
export type ReviewRound = z.infer<typeof reviewRoundSchema>;

/** Cuts text at `max` characters, ending it with `…` when it was cut. */
export function cutReviewText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
