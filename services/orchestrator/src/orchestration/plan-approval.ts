import { randomUUID } from 'node:crypto';
import type { HistoryMessage, Plan } from '@fleet/a2a';
import { NotFoundError } from '@fleet/errors';
import type { Approval, Session } from '@fleet/sessions';
import { previewPlan, summarisePlan } from '../approvals';
import { planRun, type AskPlanner, type PlanRunOptions } from '../planning';
import type { AvailableAgent } from '../discovery';
import {
  announceApproval,
  announceDecision,
  refusalReason,
  waitForDecision,
} from './node-approvals';
import { approvalExpiry, type RunContext } from './run-context';
import { syncStatus } from './session-writer';
import { updateWithRetry } from './update-with-retry';

/** Where a plan came from. */
export type PlanSource = 'llm' | 'heuristic' | 'request';

/** How a plan approval ended. */
export type PlanApprovalOutcome =
  | { approved: true; plan: Plan; source: PlanSource }
  | {
      approved: false;
      plan: Plan;
      /** `denied by a person`, `approval timed out`, … */
      reason: string;
    };

/** Options for {@link approvePlan}. */
export interface ApprovePlanOptions {
  plan: Plan;
  source: PlanSource;
  request: string;
  history: readonly HistoryMessage[];
  askPlanner: AskPlanner;
  availableAgents: () => Promise<AvailableAgent[]>;
  /** The files attached to the request, for a new plan (`planRequest.files`). */
  files?: PlanRunOptions['files'];
}

/**
 * Asks the planner again with a person's words as feedback (the previous plan for context), after
 * streaming `plan-start` with the agents available now.
 */
export async function planAgain(
  run: RunContext,
  options: Pick<
    ApprovePlanOptions,
    'request' | 'history' | 'askPlanner' | 'availableAgents' | 'files'
  > & {
    plan: Plan;
    feedback: string;
  },
): Promise<{ plan: Plan; source: PlanSource }> {
  const agents = await options.availableAgents();
  run.progress({ type: 'plan-start', agents: agents.map((agent) => agent.name) });
  const replanned = await planRun({
    askPlanner: options.askPlanner,
    request: options.request,
    history: options.history,
    agents: agents.map((agent) => agent.summary),
    feedback: options.feedback,
    previousPlan: options.plan,
    files: options.files,
    signal: run.signal,
    onPlannerCall: (call) =>
      run.logger.debug({ ...run.log, ...call, feedback: options.feedback }, 're-planning'),
  });
  return { plan: replanned.plan, source: replanned.source };
}

/** A person may send a plan back this many times before the run gives up. */
const MAX_PLAN_ROUNDS = 10;

/**
 * Plan approval (`planApproval: 'required'`): before any agent runs, records a `plan` approval
 * (action `run-plan`, the plan in one sentence, its steps as the preview), streams
 * `approval-required` and waits. Approved: the run goes on with the plan. Denied with
 * instructions: the planner is asked again with them (`feedback`, `previousPlan`), the new plan is
 * recorded (and the instructions added to `planFeedback`), streamed (`plan-start`, `plan-end`) and
 * put up for approval again. Denied without instructions, timed out or expired: the plan is not
 * approved and nothing runs.
 *
 * Resumable: it starts from the session's latest plan approval. An approval acted on carries
 * `deliveredAt` (a denial with instructions gets it in the same write as the new plan), so a
 * restart never re-plans twice for one denial nor asks again about an approved plan.
 */
export async function approvePlan(
  run: RunContext,
  options: ApprovePlanOptions,
): Promise<PlanApprovalOutcome> {
  let { plan, source } = options;
  for (let round = 0; round < MAX_PLAN_ROUNDS; round += 1) {
    await run.writer.written();
    const session = await run.sessions.get(run.sessionId);
    if (session === undefined) {
      throw new NotFoundError(`Session ${run.sessionId} does not exist or has expired.`);
    }
    let approval = latestPlanApproval(session);
    if (approval?.deliveredAt !== undefined) {
      // Acted on before: approved (go on), or denied with instructions (the plan now recorded is
      // the new one, and it needs its own approval).
      if (approval.status === 'approved') return { approved: true, plan, source };
      if (approval.status !== 'denied' || (approval.instructions ?? '').trim() === '') {
        return { approved: false, plan, reason: refusalReason(approval) };
      }
      approval = undefined;
    }
    if (approval === undefined) {
      approval = await run.sessions.addApproval(run.sessionId, {
        id: randomUUID(),
        kind: 'plan',
        action: 'run-plan',
        summary: summarisePlan(plan),
        preview: previewPlan(plan),
        risk: 'low',
        expiresAt: approvalExpiry(run.hitlTimeoutMs),
      });
    }
    if (approval.status === 'pending') {
      announceApproval(run, approval);
      approval = await waitForDecision(run, { approval, signal: run.signal });
    }

    const instructions = (approval.instructions ?? '').trim();
    if (approval.status === 'denied' && instructions !== '') {
      announceDecision(run, { approval });
      const replanned = await planAgain(run, { ...options, plan, feedback: instructions });
      plan = replanned.plan;
      source = replanned.source;
      const deniedId = approval.id;
      const newPlan = plan;
      const newSource = source;
      run.writer.record((draft) => {
        draft.plan = newPlan;
        draft.planSource = newSource;
        draft.planFeedback = [...(draft.planFeedback ?? []), instructions];
        draft.nodes = pendingNodes(newPlan);
        const denied = draft.approvals[deniedId];
        if (denied !== undefined) denied.deliveredAt ??= new Date().toISOString();
      });
      run.progress({ type: 'plan-end', plan, source });
      continue;
    }

    const decided = approval;
    await run.writer.written();
    await updateWithRetry(run.sessions, {
      id: run.sessionId,
      mutate: (draft) => {
        const recorded = draft.approvals[decided.id];
        if (recorded !== undefined) recorded.deliveredAt ??= new Date().toISOString();
        syncStatus(draft);
      },
    });
    announceDecision(run, { approval: decided });
    if (decided.status === 'approved') return { approved: true, plan, source };
    return { approved: false, plan, reason: refusalReason(decided) };
  }
  return {
    approved: false,
    plan,
    reason: `the plan was sent back ${MAX_PLAN_ROUNDS} times without being approved`,
  };
}

/** The session's most recent plan approval. */
function latestPlanApproval(session: Session): Approval | undefined {
  return Object.values(session.approvals)
    .filter((approval) => approval.kind === 'plan')
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
}

/** Every node of a plan, pending. */
export function pendingNodes(plan: Plan): Session['nodes'] {
  return Object.fromEntries(
    plan.nodes.map((node) => [
      node.id,
      { agent: node.agent, state: 'pending' as const, attempts: 0 },
    ]),
  );
}
