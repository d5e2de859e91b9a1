import { z } from 'zod';
import {
  cutReviewText,
  MAX_REVIEW_FEEDBACK,
  reviewDecisionSchema,
  reviewStepSchema,
  type ReviewDecision,
  type ReviewStep,
} from '@fleet/a2a';
import type { QuestionAnswered } from '../sessions';

/** Longest answer to an agent's question the form takes, in characters. */
export const MAX_FORM_ANSWER = 4000;

/** Longest composed answer a review form's message shows, in characters (cut with `…`). */
const MAX_SHOWN_ANSWER = 8000;

/** Longest step result a review form's message shows, in characters (cut with `…`). */
const MAX_SHOWN_STEP = 300;

/** The step and agent the orchestrator's own question about an uncertain plan names. */
const PLAN_QUESTION = { nodeId: 'plan', agent: 'orchestrator' } as const;

/** A question or a review a run stopped for, as `ask` asks it of the client. */
export type Pause =
  | {
      kind: 'question';
      /** The question's id in the session (an approval of kind `input`). */
      id: string;
      nodeId: string | undefined;
      agent: string | undefined;
      question: string;
      expiresAt: string;
    }
  | {
      kind: 'review';
      /** The review's id in the session (an approval of kind `review`). */
      id: string;
      round: number;
      answer: string;
      steps: ReviewStep[];
      expiresAt: string;
    };

const questionEventSchema = z.object({
  type: z.literal('input-required'),
  inputId: z.string().min(1),
  nodeId: z.string().optional(),
  agent: z.string().optional(),
  question: z.string(),
  expiresAt: z.string(),
});

const reviewEventSchema = z.object({
  type: z.literal('review-required'),
  approvalId: z.string().min(1),
  round: z.number().int().min(1),
  answer: z.string(),
  steps: z.array(reviewStepSchema),
  expiresAt: z.string(),
});

/** The question or review a run's progress event asks for, or undefined for any other event. */
export function pauseOfEvent(fleet: Record<string, unknown> | undefined): Pause | undefined {
  const question = questionEventSchema.safeParse(fleet ?? {});
  if (question.success) {
    const { inputId, nodeId, agent, question: text, expiresAt } = question.data;
    return { kind: 'question', id: inputId, nodeId, agent, question: text, expiresAt };
  }
  const review = reviewEventSchema.safeParse(fleet ?? {});
  if (review.success) {
    const { approvalId, round, answer, steps, expiresAt } = review.data;
    return { kind: 'review', id: approvalId, round, answer, steps, expiresAt };
  }
  return undefined;
}

/** What a person answers in the question form. */
export const questionFormSchema = z.object({
  answer: z.string().trim().min(1).max(MAX_FORM_ANSWER),
});

/** The question form's schema on the wire (elicitation's restricted JSON Schema). */
export const QUESTION_FORM = {
  type: 'object',
  properties: {
    answer: {
      type: 'string',
      title: 'Answer',
      minLength: 1,
      maxLength: MAX_FORM_ANSWER,
      description: 'Your answer to the question.',
    },
  },
  required: ['answer'],
} as const;

/** The decisions the review form offers. */
const REVIEW_DECISIONS = ['approve', 'recompose', 'replan', 'revise'] as const;

/** What a person answers in the review form (`steps`: comma-separated step ids). */
export const reviewFormSchema = z.object({
  decision: z.enum(REVIEW_DECISIONS),
  feedback: z.string().max(MAX_REVIEW_FEEDBACK).optional(),
  steps: z.string().max(1000).optional(),
});

/** The review form's schema on the wire (elicitation's restricted JSON Schema). */
export const REVIEW_FORM = {
  type: 'object',
  properties: {
    decision: {
      type: 'string',
      title: 'Decision',
      enum: [...REVIEW_DECISIONS],
      description:
        'approve: the answer stands and is sent. recompose: only the answer is written again, with your feedback. replan: the fleet plans again with your feedback. revise: the steps you name run again with your feedback.',
    },
    feedback: {
      type: 'string',
      title: 'Feedback',
      maxLength: MAX_REVIEW_FEEDBACK,
      description: 'What to change: needed for replan and revise, taken by recompose.',
    },
    steps: {
      type: 'string',
      title: 'Steps to run again',
      maxLength: 1000,
      description: 'For revise only: the ids of the steps to run again, comma-separated (n1, n2).',
    },
  },
  required: ['decision'],
} as const;

/**
 * The review decision a filled review form stands for, checked as `POST /v1/sessions/{id}/review`
 * checks its body; `steps` count for `revise` only.
 */
export function reviewDecisionOfForm(
  form: z.infer<typeof reviewFormSchema>,
): { decision: ReviewDecision } | { invalid: string } {
  const steps =
    form.decision === 'revise'
      ? (form.steps ?? '')
          .split(',')
          .map((step) => step.trim())
          .filter((step) => step !== '')
      : [];
  const parsed = reviewDecisionSchema.safeParse({
    decision: form.decision,
    ...(form.feedback === undefined || form.feedback.trim() === ''
      ? {}
      : { feedback: form.feedback }),
    ...(steps.length === 0 ? {} : { steps }),
  });
  if (parsed.success) return { decision: parsed.data };
  return { invalid: parsed.error.issues.map((issue) => issue.message).join('; ') };
}

/** Who asks a question, in words: the agent and its step, or the orchestrator about its plan. */
function asker(pause: Extract<Pause, { kind: 'question' }>): string {
  if (pause.nodeId === PLAN_QUESTION.nodeId && pause.agent === PLAN_QUESTION.agent) {
    return 'The orchestrator asks about its plan before it runs it';
  }
  const agent = pause.agent === undefined ? 'An agent' : `The agent ${pause.agent}`;
  return pause.nodeId === undefined ? `${agent} asks` : `${agent} (step ${pause.nodeId}) asks`;
}

/** The readable text of a review: the answer and each step's result. */
function describeReview(pause: Extract<Pause, { kind: 'review' }>): string {
  const steps = pause.steps.map((step) => {
    const result = step.error ?? step.summary;
    const shown = result === undefined ? '' : `: ${cutReviewText(result, MAX_SHOWN_STEP)}`;
    return `- ${step.id} (${step.agent}, ${step.state})${shown}`;
  });
  return [
    `The answer waits for your review (round ${pause.round}) before it is sent.`,
    `Answer:\n${cutReviewText(pause.answer, MAX_SHOWN_ANSWER)}`,
    ...(steps.length === 0 ? [] : [`Steps:\n${steps.join('\n')}`]),
    'Approve it, or send it back: recompose (write the answer again), replan (plan again) or revise (run the steps you name again), with your feedback.',
  ].join('\n');
}

/** The form's message for a pause, led by `note` (why a form is asked again) when there is one. */
export function describePause(pause: Pause, note?: string): string {
  const text =
    pause.kind === 'question' ? `${asker(pause)}:\n${pause.question}` : describeReview(pause);
  return note === undefined ? text : `${note}\n\n${text}`;
}

/** The form a pause is asked with. */
export function pauseForm(pause: Pause): typeof QUESTION_FORM | typeof REVIEW_FORM {
  return pause.kind === 'question' ? QUESTION_FORM : REVIEW_FORM;
}

/**
 * A person's reply to a pause's form: the form's result, or `settled` when the question was
 * answered or the review decided elsewhere (the console, the API, a cancel) first.
 */
export type FormReply = { action: 'accept' | 'decline' | 'cancel'; content: unknown } | 'settled';

/** What a reply to a pause's form comes to. */
export type PauseNext =
  /**
   * Follow the session on; `answer` (when given) is the message that answers the question
   * `answers` names, as `ask` with `session_id` and `question` answers it.
   */
  | { kind: 'follow'; answer?: string | undefined; answers: QuestionAnswered }
  /** The form was not filled in as it asks: ask it again, `note` saying why. */
  | { kind: 'again'; note: string }
  /** Declined or cancelled: the call answers that the run waits, and how to continue. */
  | { kind: 'stay' };
