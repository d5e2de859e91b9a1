import { randomUUID } from 'node:crypto';
import {
  cutReviewText,
  dataPart,
  DEFAULT_MAX_REVIEW_ROUNDS,
  MAX_REVIEW_ANSWER,
  MAX_REVIEW_STEP_SUMMARY,
  RESULT_ARTIFACT_NAME,
  textPart,
  type Plan,
  type PlanNode,
  type ProgressEvent,
  type ReviewRound,
  type ReviewStep,
  type RunResult,
} from '@fleet/a2a';
import { InternalError, NotFoundError } from '@fleet/errors';
import { latestReview, type Approval, type Session } from '@fleet/sessions';
import type { ExecutionResult } from '../execution';
import type { AnswerPublisher } from './answer-publisher';
import { waitForDecision } from './node-approvals';
import { pendingNodes, type PlanSource } from './plan-approval';
import { approvalExpiry, type RunContext } from './run-context';
import { syncStatus } from './session-writer';
import { updateWithRetry } from './update-with-retry';

/** How a run's answers are reviewed (`resultReview: 'required'`). */
export interface ResultReviewSettings {
  /** How long a person has to review an answer, in seconds. Undefined: the run's HITL time-out. */
  timeoutSeconds: number | undefined;
  /** What the time-out decides: `approve` sends the answer as it stands, `fail` fails the run. */
  onTimeout: 'approve' | 'fail';
  /** How many rounds a run's answer is put up for review. */
  maxRounds: number;
}

/** The review settings unless the orchestrator is told otherwise. */
export const DEFAULT_RESULT_REVIEW: ResultReviewSettings = {
  timeoutSeconds: undefined,
  onTimeout: 'approve',
  maxRounds: DEFAULT_MAX_REVIEW_ROUNDS,
};

/** The message a run fails with when nobody reviewed its answer in time and the time-out fails it. */
export const REVIEW_TIMED_OUT_MESSAGE = 'the answer was not reviewed in time';

/** Longest step result the planner is told of when a review asks for a new plan, in characters. */
const MAX_REPLAN_STEP_SUMMARY = 1000;

/** A composed answer: its text, the run result it is sent with, and the fleet's failure if any. */
export interface ComposedRun {
  text: string;
  result: RunResult;
  failure?: string | undefined;
}

/** The plan and how its steps went: what an answer is composed from. */
export interface ExecutedPlan {
  plan: Plan;
  execution: ExecutionResult;
}

/** What {@link reviewAnswer} works with: the run, and what it may do with it. */
export interface ReviewAnswerOptions extends ExecutedPlan {
  run: RunContext;
  settings?: Partial<ResultReviewSettings> | undefined;
  /** Streams a status line. */
  say: (message: string) => void;
  /** Composes an answer, without streaming it; undefined when the run was aborted meanwhile. */
  compose: (
    input: ExecutedPlan & { feedback?: string | undefined },
  ) => Promise<ComposedRun | undefined>;
  /** An answer composed before (kept in its review round), with its run result rebuilt. */
  stored: (input: ExecutedPlan & { text: string }) => ComposedRun;
  /** Executes the plan from the node states recorded in the session. */
  execute: (plan: Plan) => Promise<ExecutionResult>;
  /** Asks the planner again with the reviewer's feedback (streams `plan-start`). */
  replan: (input: { plan: Plan; feedback: string }) => Promise<{ plan: Plan; source: PlanSource }>;
  /** Ends the run with an answer (streamed as the `result` artifact). */
  endCompleted: (composed: ComposedRun) => Promise<string>;
  endFailed: (message: string) => Promise<undefined>;
  endAborted: () => Promise<undefined>;
}

/**
 * Result review (`resultReview: 'required'`): the composed answer is not streamed but put up for
 * a person's review, round by round, until it is approved. Each round is an approval of kind
 * `review` (action `review-answer`) whose `review` keeps the answer and each step's result;
 * `review-required` is streamed and the run waits, its slot free, for the decision:
 * - `approve`: `review-end`, the approval is marked delivered, and the answer is sent.
 * - `revise`: the named steps and every step depending on them are reset to `pending` — except a
 *   dependent whose approved action was carried out, which keeps its result (`kept`) — in the
 *   same write that marks the decision delivered; they run again (a named step's task carries the
 *   feedback and its previous result), and the answer is composed again.
 * - `replan`: the planner plans again with the feedback and what each step did; steps the new plan
 *   keeps unchanged keep their results; the plan runs and the answer is composed again.
 * - `recompose`: the answer is composed again with the feedback.
 * - nobody decided in time: `approve` sends the answer as it stands (the round records
 *   `approve`, `timedOut`); `fail` ends the run failed.
 * After the last round (`maxRounds`) the answer stands whatever was decided.
 *
 * Resumable: it starts from the session's latest review. A pending one is announced again and
 * waited for (nothing is composed again); a decided one not yet acted on is acted on; one acted
 * on (`deliveredAt`) leads to the next round, its steps already run by the resumed execution.
 */
export async function reviewAnswer(options: ReviewAnswerOptions): Promise<string | undefined> {
  const { run } = options;
  const settings = reviewSettings(options.settings);
  const timeoutMs =
    settings.timeoutSeconds === undefined ? run.hitlTimeoutMs : settings.timeoutSeconds * 1000;
  let { plan, execution } = options;
  // The answers composed by this process, by approval id: a restart keeps the round's text only.
  const composedHere = new Map<string, ComposedRun>();
  const answerOf = (approval: Approval): ComposedRun =>
    composedHere.get(approval.id) ??
    options.stored({ plan, execution, text: approval.review?.answer ?? '' });

  // Each round either ends the run or is acted on (at most every round and one more to compose).
  for (let turn = 0; turn <= settings.maxRounds * 2 + 1; turn += 1) {
    if (run.signal.aborted) return options.endAborted();
    const session = await currentSession(run);
    let approval = latestReview(session);
    if (approval === undefined || isActedOn(approval)) {
      const round = (approval?.review?.round ?? 0) + 1;
      const feedback =
        approval?.review?.decision === 'recompose' ? approval.review.feedback : undefined;
      const composed = await options.compose({ plan, execution, feedback });
      if (composed === undefined) return options.endAborted();
      approval = await recordRound(run, { round, plan, execution, composed, timeoutMs });
      composedHere.set(approval.id, composed);
    }
    const review = roundOf(approval);

    if (approval.status === 'pending') {
      const decided = await announceAndWait(run, approval, settings.onTimeout);
      if (decided === undefined) return options.endAborted();
      approval = decided;
    }

    const timedOut = approval.status === 'expired' || approval.status === 'timed_out';
    if (timedOut && settings.onTimeout === 'fail') {
      await deliver(run, approval.id, (recorded) => {
        recorded.timedOut = true;
      });
      return options.endFailed(REVIEW_TIMED_OUT_MESSAGE);
    }
    if (timedOut || approval.status === 'approved') {
      await deliver(run, approval.id, (recorded) => {
        recorded.decision = 'approve';
        if (timedOut) recorded.timedOut = true;
      });
      announceEnd(run, approval, { decision: 'approve', ...(timedOut ? { timedOut } : {}) });
      return options.endCompleted(answerOf(approval));
    }
    const decision = approval.review?.decision;
    if (approval.status !== 'denied' || decision === undefined || decision === 'approve') {
      // Denied without a review decision: the session was canceled.
      if (run.signal.aborted) return options.endAborted();
      return options.endFailed(`The review ended without a decision (${approval.status}).`);
    }
    if (review.round >= settings.maxRounds) {
      await deliver(run, approval.id, () => undefined);
      options.say(
        `The answer was reviewed ${review.round} time${review.round === 1 ? '' : 's'}, the most a run is; it is sent as it stands.`,
      );
      return options.endCompleted(answerOf(approval));
    }

    const feedback = approval.review?.feedback;
    if (decision === 'recompose') {
      await deliver(run, approval.id, () => undefined);
      announceEnd(run, approval, { decision, ...(feedback === undefined ? {} : { feedback }) });
      continue;
    }
    if (decision === 'revise') {
      const revised = await reviseSteps(run, { approval, plan });
      announceEnd(run, approval, {
        decision,
        ...(feedback === undefined ? {} : { feedback }),
        targets: revised.targets,
        rerun: revised.rerun,
        kept: revised.kept,
      });
      execution = await options.execute(await reviewedPlan(run, plan));
      if (execution.canceled || run.signal.aborted) return options.endAborted();
      // With the steps hand-offs added while they ran again, as the session records them.
      plan = (await currentSession(run)).plan ?? plan;
      continue;
    }
    // replan
    announceEnd(run, approval, { decision, ...(feedback === undefined ? {} : { feedback }) });
    const replanned = await replanRun(run, { approval, plan, execution, options });
    if (replanned === undefined) return options.endAborted();
    plan = replanned;
    execution = await options.execute(plan);
    if (execution.canceled || run.signal.aborted) return options.endAborted();
    plan = (await currentSession(run)).plan ?? plan;
  }
  throw new InternalError('The result review went on longer than its rounds allow.');
}

/** The review's settings, each one not given taken from `DEFAULT_RESULT_REVIEW`. */
function reviewSettings(given: ReviewAnswerOptions['settings']): ResultReviewSettings {
  return {
    timeoutSeconds: given?.timeoutSeconds ?? DEFAULT_RESULT_REVIEW.timeoutSeconds,
    onTimeout: given?.onTimeout ?? DEFAULT_RESULT_REVIEW.onTimeout,
    maxRounds: given?.maxRounds ?? DEFAULT_RESULT_REVIEW.maxRounds,
  };
}

/**
 * Announces a pending review and waits for its decision; undefined when the run was aborted
 * while it waited.
 */
async function announceAndWait(
  run: RunContext,
  pending: Approval,
  onTimeout: ResultReviewSettings['onTimeout'],
): Promise<Approval | undefined> {
  announceReview(run, pending, onTimeout);
  const wait = (): Promise<Approval> =>
    waitForDecision(run, { approval: pending, signal: run.signal });
  try {
    // Nothing of the run goes on while a person reads the answer: its slot is free meanwhile.
    return run.slot === undefined ? await wait() : await run.slot.whileWaiting(wait);
  } catch (error) {
    if (run.signal.aborted) return undefined;
    throw error;
  }
}

/**
 * An answer publisher that shows nothing (an answer put up for review is not final): its final
 * text is the text, and its artifact the whole answer.
 */
export function silentAnswerPublisher(): AnswerPublisher {
  return {
    shown: '',
    push: () => undefined,
    finalText: (text) => text,
    finish: (text, result) => ({
      type: 'artifact',
      artifact: { name: RESULT_ARTIFACT_NAME, parts: [textPart(text), dataPart(result)] },
      lastChunk: true,
    }),
  };
}

/**
 * The plan as it is executed after a review sent steps back (`revise`): each step the latest
 * revise named and that is still to run gets the reviewer's feedback and its previous result after
 * its task. The recorded plan keeps the original tasks. Any other plan is returned as it is.
 */
export async function reviewedPlan(run: RunContext, plan: Plan): Promise<Plan> {
  const session = await currentSession(run);
  const approval = latestReview(session);
  const review = approval?.review;
  if (approval?.deliveredAt === undefined || review?.decision !== 'revise') return plan;
  const feedback = review.feedback ?? '';
  return {
    ...plan,
    nodes: plan.nodes.map((node) => {
      const recorded = session.nodes[node.id];
      if (recorded?.revision?.round !== review.round || recorded.state === 'completed') {
        return node;
      }
      const before = review.steps.find((step) => step.id === node.id);
      const previous =
        before?.summary ?? (before?.error === undefined ? '(none)' : `(none: ${before.error})`);
      return {
        ...node,
        task: `${node.task}\n\nA reviewer sent this step back: ${feedback}\nYour previous result: ${previous}`,
      };
    }),
  };
}

/**
 * The steps a `revise` of `targets` runs again, and the dependents it leaves alone: every step
 * that depends on a target, directly or not, runs again unless its approved action was carried
 * out (its node's approval is `approved`) and it is not a target itself.
 */
export function revisionScope(
  plan: Plan,
  session: Pick<Session, 'nodes' | 'approvals'>,
  targets: readonly string[],
): { rerun: string[]; kept: string[] } {
  const affected = new Set(targets);
  // Plan order is a topological order only by accident: iterate to a fixed point.
  for (let changed = true; changed;) {
    changed = false;
    for (const node of plan.nodes) {
      if (affected.has(node.id)) continue;
      if (node.dependsOn.some((id) => affected.has(id))) {
        affected.add(node.id);
        changed = true;
      }
    }
  }
  const rerun: string[] = [];
  const kept: string[] = [];
  for (const node of plan.nodes) {
    if (!affected.has(node.id)) continue;
    if (!targets.includes(node.id) && actionCarriedOut(session, node.id)) kept.push(node.id);
    else rerun.push(node.id);
  }
  return { rerun, kept };
}

/** Whether the step's agent asked for an approval that was granted (its action happened). */
function actionCarriedOut(session: Pick<Session, 'nodes' | 'approvals'>, nodeId: string): boolean {
  const approvalId = session.nodes[nodeId]?.approvalId;
  return approvalId !== undefined && session.approvals[approvalId]?.status === 'approved';
}

/**
 * Acts on a `revise`: in one session write, records which steps run again and which keep their
 * results, resets the former to `pending` (the targets with `revision`), and marks the decision
 * delivered. A decision delivered before (a restart) is left as it was recorded.
 */
async function reviseSteps(
  run: RunContext,
  { approval, plan }: { approval: Approval; plan: Plan },
): Promise<{ targets: string[]; rerun: string[]; kept: string[] }> {
  await run.writer.written();
  const outcome = await updateWithRetry(run.sessions, {
    id: run.sessionId,
    mutate: (draft) => {
      const recorded = draft.approvals[approval.id];
      const review = recorded?.review;
      if (recorded === undefined || review === undefined) {
        throw new InternalError(`Review ${approval.id} is not recorded.`);
      }
      const targets = review.targets ?? [];
      if (recorded.deliveredAt !== undefined) {
        return { targets, rerun: review.rerun ?? [], kept: review.kept ?? [] };
      }
      const { rerun, kept } = revisionScope(plan, draft, targets);
      review.rerun = rerun;
      review.kept = kept;
      recorded.deliveredAt = new Date().toISOString();
      const feedback = review.feedback ?? '';
      for (const id of rerun) {
        const node = draft.nodes[id];
        const agent = node?.agent ?? plan.nodes.find((entry) => entry.id === id)?.agent ?? '?';
        draft.nodes[id] = {
          agent,
          state: 'pending',
          attempts: 0,
          ...(targets.includes(id)
            ? { revision: { round: review.round, feedback } }
            : node?.revision === undefined
              ? {}
              : { revision: node.revision }),
        };
      }
      syncStatus(draft);
      return { targets, rerun, kept };
    },
  });
  return outcome;
}

/**
 * Acts on a `replan`: asks the planner again with the feedback and what each step did, then, in
 * one write, records the new plan — its steps identical to completed ones keep their results, the
 * others are pending — and marks the decision delivered. Undefined when the run was aborted.
 */
async function replanRun(
  run: RunContext,
  {
    approval,
    plan,
    execution,
    options,
  }: {
    approval: Approval;
    plan: Plan;
    execution: ExecutionResult;
    options: Pick<ReviewAnswerOptions, 'replan'>;
  },
): Promise<Plan | undefined> {
  if (approval.deliveredAt !== undefined) {
    // Acted on before a restart: the new plan is the recorded one.
    return (await currentSession(run)).plan ?? plan;
  }
  const feedback = replanFeedback(approval.review?.feedback ?? '', plan, execution);
  let replanned: { plan: Plan; source: PlanSource };
  try {
    replanned = await options.replan({ plan, feedback });
  } catch (error) {
    if (run.signal.aborted) return undefined;
    throw error;
  }
  const next = replanned.plan;
  await run.writer.written();
  await updateWithRetry(run.sessions, {
    id: run.sessionId,
    mutate: (draft) => {
      const recorded = draft.approvals[approval.id];
      if (recorded === undefined || recorded.deliveredAt !== undefined) return;
      recorded.deliveredAt = new Date().toISOString();
      const nodes = pendingNodes(next);
      for (const node of next.nodes) {
        const old = plan.nodes.find((entry) => entry.id === node.id);
        const done = draft.nodes[node.id];
        if (old !== undefined && done?.state === 'completed' && sameStep(old, node)) {
          nodes[node.id] = done;
        }
      }
      draft.plan = next;
      draft.planSource = replanned.source;
      draft.nodes = nodes;
      syncStatus(draft);
    },
  });
  run.progress({ type: 'plan-end', plan: next, source: replanned.source });
  return next;
}

/** The same step in two plans: same id, agent, task and dependencies. */
function sameStep(a: PlanNode, b: PlanNode): boolean {
  return (
    a.id === b.id &&
    a.agent === b.agent &&
    a.task === b.task &&
    a.dependsOn.length === b.dependsOn.length &&
    a.dependsOn.every((id) => b.dependsOn.includes(id))
  );
}

/** The planner's feedback for a review's re-plan: the reviewer's words and what each step did. */
function replanFeedback(feedback: string, plan: Plan, execution: ExecutionResult): string {
  const lines = plan.nodes.map((node) => {
    const done = execution.nodes.find((entry) => entry.id === node.id);
    const state = done?.state ?? 'pending';
    const result =
      done?.summary !== undefined
        ? `: ${cutReviewText(done.summary.trim(), MAX_REPLAN_STEP_SUMMARY)}`
        : done?.error !== undefined
          ? ` (${done.error})`
          : '';
    return `- ${node.id} (${node.agent}, ${state})${result}`;
  });
  return `${feedback}\n\nA reviewer read the answer and asked for a new plan. What the steps did:\n${lines.join('\n')}`;
}

/** Records a round: the review approval with the answer and each step's result. */
async function recordRound(
  run: RunContext,
  {
    round,
    plan,
    execution,
    composed,
    timeoutMs,
  }: ExecutedPlan & { round: number; composed: ComposedRun; timeoutMs: number },
): Promise<Approval> {
  await run.writer.written();
  const review: ReviewRound = {
    round,
    answer: cutReviewText(composed.text, MAX_REVIEW_ANSWER),
    steps: reviewSteps(plan, execution),
  };
  const failed = review.steps.filter((step) => step.state !== 'completed').length;
  return run.sessions.addApproval(run.sessionId, {
    id: randomUUID(),
    kind: 'review',
    action: 'review-answer',
    summary: `Review the answer (round ${round}) from ${plan.nodes.length} step${plan.nodes.length === 1 ? '' : 's'}${failed === 0 ? '' : `, ${failed} not done`}.`,
    preview: review.answer,
    risk: 'low',
    expiresAt: approvalExpiry(timeoutMs),
    review,
  });
}

/** Each plan step's result, as a review round shows it. */
function reviewSteps(plan: Plan, execution: ExecutionResult): ReviewStep[] {
  return plan.nodes.map((node) => {
    const done = execution.nodes.find((entry) => entry.id === node.id);
    return {
      id: node.id,
      agent: node.agent,
      state: done?.state ?? 'pending',
      ...(done?.summary === undefined
        ? {}
        : { summary: cutReviewText(done.summary, MAX_REVIEW_STEP_SUMMARY) }),
      ...(done?.error === undefined ? {} : { error: done.error }),
      ...(node.origin === undefined ? {} : { added: true }),
    };
  });
}

/** Streams `review-required` for a pending review. */
function announceReview(run: RunContext, approval: Approval, onTimeout: 'approve' | 'fail'): void {
  const review = roundOf(approval);
  run.progress({
    type: 'review-required',
    sessionId: run.sessionId,
    approvalId: approval.id,
    round: review.round,
    answer: review.answer,
    steps: review.steps,
    expiresAt: approval.expiresAt,
    onTimeout,
  });
}

/** The `review-end` progress event. */
type ReviewEnd = Extract<ProgressEvent, { type: 'review-end' }>;

/** Streams `review-end`. */
function announceEnd(
  run: RunContext,
  approval: Approval,
  decided: Omit<ReviewEnd, 'type' | 'approvalId' | 'round'>,
): void {
  run.progress({
    type: 'review-end',
    approvalId: approval.id,
    round: roundOf(approval).round,
    ...decided,
  });
}

/**
 * Marks a decided review delivered (acted on), with `change` applied to its round, in one write
 * (once: a review delivered before keeps its record).
 */
async function deliver(
  run: RunContext,
  approvalId: string,
  change: (review: ReviewRound) => void,
): Promise<void> {
  await run.writer.written();
  await updateWithRetry(run.sessions, {
    id: run.sessionId,
    mutate: (draft) => {
      const recorded = draft.approvals[approvalId];
      if (recorded === undefined || recorded.deliveredAt !== undefined) return;
      recorded.deliveredAt = new Date().toISOString();
      if (recorded.review !== undefined) change(recorded.review);
      syncStatus(draft);
    },
  });
}

/** Whether a review was sent back and acted on: the next round is due. */
function isActedOn(approval: Approval): boolean {
  return approval.deliveredAt !== undefined && approval.status === 'denied';
}

/** A review approval's round. */
function roundOf(approval: Approval): ReviewRound {
  if (approval.review === undefined) {
    throw new InternalError(`Review ${approval.id} has no round recorded.`);
  }
  return approval.review;
}

/** The session as it stands, once the run's own changes are written. */
async function currentSession(run: RunContext): Promise<Session> {
  await run.writer.written();
  const session = await run.sessions.get(run.sessionId);
  if (session === undefined) {
    throw new NotFoundError(`Session ${run.sessionId} does not exist or has expired.`);
  }
  return session;
}
