import { randomUUID } from 'node:crypto';
import type { HistoryMessage, OrchestrateRequest, Plan } from '@fleet/a2a';
import { NotFoundError } from '@fleet/errors';
import type { Approval, Session } from '@fleet/sessions';
import { previewPlan } from '../approvals';
import type { AvailableAgent } from '../discovery';
import type { AskPlanner, PlanRunOptions } from '../planning';
import { announceDecision, waitForDecision } from './node-approvals';
import type { PlanSource } from './plan-approval';
import { pendingNodes, planAgain } from './plan-approval';
import { approvalExpiry, type RunContext } from './run-context';
import { syncStatus } from './session-writer';
import { updateWithRetry } from './update-with-retry';

/** What to do with a plan below the confidence threshold (`X-Low-Confidence`). */
export type LowConfidenceMode = NonNullable<OrchestrateRequest['lowConfidence']>;

/** The orchestrator-wide handling of uncertain plans (ORCHESTRATOR_PLAN_CONFIDENCE_THRESHOLD, …). */
export interface PlanConfidenceSettings {
  /** A plan with steps whose confidence is below this is uncertain. @default 0.5 */
  threshold: number;
  /** What to do when the request does not say (`X-Low-Confidence`). @default 'run' */
  mode: LowConfidenceMode;
}

/** The defaults: flag plans below 0.5 and run them anyway (saying so). */
export const DEFAULT_PLAN_CONFIDENCE: PlanConfidenceSettings = { threshold: 0.5, mode: 'run' };

/** The action of the question asked about an uncertain plan (an approval of kind `input`). */
export const CONFIRM_PLAN_ACTION = 'confirm-plan';

/** The pseudo step id and agent the question about the plan is announced under. */
export const PLAN_QUESTION_NODE = 'plan';
export const PLAN_QUESTION_AGENT = 'orchestrator';

/** How often an uncertain plan is asked about (and re-planned with the reply) before it runs. */
const MAX_QUESTIONS = 3;

/** Options for {@link confirmPlanConfidence}. */
export interface ConfirmPlanConfidenceOptions {
  plan: Plan;
  source: PlanSource;
  /** True when the plan was made for this run now; false when it was recorded before (a resume). */
  fresh: boolean;
  settings: PlanConfidenceSettings;
  /** The request's choice (`X-Low-Confidence`); undefined: `settings.mode`. */
  requested: LowConfidenceMode | undefined;
  request: string;
  history: readonly HistoryMessage[];
  askPlanner: AskPlanner;
  availableAgents: () => Promise<AvailableAgent[]>;
  /** The files attached to the request, for a new plan (`planRequest.files`). */
  files?: PlanRunOptions['files'];
  /** Streams a line to the client (a WORKING status with the text). */
  say: (text: string) => void;
}

/** How the confidence step ended. */
export type PlanConfidenceOutcome =
  | {
      /** Go on with this plan; `approve`: put it up for plan approval first. */
      next: 'run' | 'approve';
      plan: Plan;
      source: PlanSource;
    }
  | {
      next: 'not-run';
      plan: Plan;
      /** Why nothing runs: `nobody answered the question about the uncertain plan (timed out)`. */
      reason: string;
    };

/** True when a plan with steps, made by a planner, is below the threshold. */
export function isUncertain(plan: Plan, source: PlanSource, threshold: number): boolean {
  return source !== 'request' && plan.nodes.length > 0 && plan.confidence < threshold;
}

/**
 * The line every mode streams for an uncertain plan: "The plan is uncertain (confidence 0.35,
 * below 0.5): …" and what happens now.
 */
export function describeUncertainty(
  plan: Plan,
  { threshold, mode }: { threshold: number; mode: LowConfidenceMode },
): string {
  const what =
    mode === 'run'
      ? 'running it anyway (X-Low-Confidence: approve or ask to be consulted first).'
      : mode === 'approve'
        ? 'showing it for your approval before any step runs.'
        : 'asking you about it before any step runs.';
  return `The plan is uncertain (confidence ${plan.confidence.toFixed(2)}, below ${threshold}): ${what}`;
}

/**
 * A reply that means "run the plan as it is" (`go ahead`, `yes`, `ok`, `run it`, …); anything else
 * is feedback to plan again with.
 */
export function isGoAhead(reply: string): boolean {
  return /^(go ahead|go|yes|yes please|y|ok|okay|sure|run it|run|proceed|continue|do it|fine|looks good)[.! ]*$/i.test(
    reply.trim(),
  );
}

/**
 * The plan-confidence step, right after planning (docs/architecture.md §5, "Plan confidence"). A
 * fresh plan with steps from the planner (not one given with the request) whose `confidence` is
 * below the threshold is uncertain; every mode streams a line saying so, then:
 *
 * - `run`: the run goes on with it;
 * - `approve`: the plan is put up for approval as with `X-Plan-Approval: required` (recorded as
 *   the session's `planApproval`, so a resumed run asks too);
 * - `ask`: the person is asked a question (an approval of kind `input`, action `confirm-plan`,
 *   streamed as `input-required` for step `plan` of `orchestrator`: answered like an agent's
 *   question). "Go ahead" runs the plan; any other reply is the feedback of a re-plan, and a new
 *   plan still below the threshold is asked about again, up to {@link MAX_QUESTIONS} times, then
 *   run. Nobody answering by the expiry runs nothing.
 *
 * Resumable: a resumed run whose session has a `confirm-plan` question not yet acted on picks it
 * up (waits, or acts on the reply recorded meanwhile); one acted on carries `deliveredAt`.
 */
export async function confirmPlanConfidence(
  run: RunContext,
  options: ConfirmPlanConfidenceOptions,
): Promise<PlanConfidenceOutcome> {
  const { settings, say } = options;
  let { plan, source } = options;
  const mode = options.requested ?? settings.mode;
  let question = options.fresh ? undefined : await openQuestion(run);
  if (question === undefined) {
    if (!options.fresh || !isUncertain(plan, source, settings.threshold)) {
      return { next: 'run', plan, source };
    }
    say(describeUncertainty(plan, { threshold: settings.threshold, mode }));
    if (mode === 'run') return { next: 'run', plan, source };
    if (mode === 'approve') {
      run.writer.record((draft) => {
        draft.planApproval = true;
      });
      return { next: 'approve', plan, source };
    }
  }
  for (let round = 1; round <= MAX_QUESTIONS; round += 1) {
    question ??= await run.sessions.addApproval(run.sessionId, {
      id: randomUUID(),
      kind: 'input',
      agent: PLAN_QUESTION_AGENT,
      action: CONFIRM_PLAN_ACTION,
      summary: `The plan is uncertain (confidence ${plan.confidence.toFixed(2)}): run it, or say what you want?`,
      preview: questionText(plan, settings.threshold),
      risk: 'low',
      expiresAt: approvalExpiry(run.hitlTimeoutMs),
    });
    let answered = question;
    if (answered.status === 'pending') {
      run.progress({
        type: 'input-required',
        inputId: answered.id,
        nodeId: PLAN_QUESTION_NODE,
        agent: PLAN_QUESTION_AGENT,
        question: answered.preview,
        expiresAt: answered.expiresAt,
      });
      answered = await waitForDecision(run, { approval: answered, signal: run.signal });
    }
    const reply = (answered.answer ?? '').trim();
    const replan = answered.status === 'answered' && reply !== '' && !isGoAhead(reply);
    const next = replan ? await planAgain(run, { ...options, plan, feedback: reply }) : undefined;
    const acted = answered.id;
    await run.writer.written();
    await updateWithRetry(run.sessions, {
      id: run.sessionId,
      mutate: (draft) => {
        const recorded = draft.approvals[acted];
        if (recorded !== undefined) recorded.deliveredAt ??= new Date().toISOString();
        if (next !== undefined) {
          draft.plan = next.plan;
          draft.planSource = next.source;
          draft.planFeedback = [...(draft.planFeedback ?? []), reply];
          draft.nodes = pendingNodes(next.plan);
        }
        syncStatus(draft);
      },
    });
    announceDecision(run, { approval: answered });
    if (answered.status !== 'answered') {
      return {
        next: 'not-run',
        plan,
        reason: `nobody answered the question about the uncertain plan (${answered.status.replace('_', ' ')})`,
      };
    }
    if (next === undefined) return { next: 'run', plan, source };
    ({ plan, source } = next);
    run.progress({ type: 'plan-end', plan, source });
    if (!isUncertain(plan, source, settings.threshold)) return { next: 'run', plan, source };
    if (round === MAX_QUESTIONS) {
      say(
        `The new plan is still uncertain (confidence ${plan.confidence.toFixed(2)}, below ${settings.threshold}) after ${MAX_QUESTIONS} replies: running it.`,
      );
      return { next: 'run', plan, source };
    }
    say(describeUncertainty(plan, { threshold: settings.threshold, mode: 'ask' }));
    question = undefined;
  }
  return { next: 'run', plan, source };
}

/** The question about an uncertain plan, for a person. */
function questionText(plan: Plan, threshold: number): string {
  return [
    `I am not sure this plan does what you want (confidence ${plan.confidence.toFixed(2)}, below ${threshold}).`,
    previewPlan(plan),
    'Reply "go ahead" to run it as it is, or say what you want done (which agent or data, what result) and I will plan again.',
  ].join('\n\n');
}

/** The session's latest `confirm-plan` question not yet acted on, if any. */
async function openQuestion(run: RunContext): Promise<Approval | undefined> {
  await run.writer.written();
  const session: Session | undefined = await run.sessions.get(run.sessionId);
  if (session === undefined) {
    throw new NotFoundError(`Session ${run.sessionId} does not exist or has expired.`);
  }
  return Object.values(session.approvals)
    .filter(
      (approval) =>
        approval.kind === 'input' &&
        approval.action === CONFIRM_PLAN_ACTION &&
        approval.deliveredAt === undefined,
    )
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
}
