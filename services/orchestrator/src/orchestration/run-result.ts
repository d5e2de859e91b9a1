import type { NodeReport, Plan, RunResult } from '@fleet/a2a';
import type { Session, SessionNode } from '@fleet/sessions';
import type { NodeRun, ResumedNode } from '../execution';
import { continuationFor, recordedDecision } from './node-approvals';

/** A plan with no steps, for a session that ended before it had one. */
const EMPTY_PLAN: Plan = { nodes: [], rationale: '', confidence: 0 };

/** A node of the run's result, from the executor's record of it. */
export function toNodeReport(run: NodeRun): NodeReport {
  return {
    id: run.id,
    agent: run.agent,
    state: run.state,
    attempts: run.attempts,
    ...(run.startedAt !== undefined && run.endedAt !== undefined
      ? { durationMs: run.endedAt - run.startedAt }
      : {}),
    ...(run.error === undefined ? {} : { error: run.error }),
    ...(run.failure === undefined || run.state !== 'failed' ? {} : { failure: run.failure }),
    ...(run.files === undefined || run.files.length === 0
      ? {}
      : { files: run.files.map((file) => file.id) }),
  };
}

/** A node of the run's result, from the session's record of it. */
function sessionNodeReport(id: string, node: SessionNode): NodeReport {
  const startedAt = node.startedAt === undefined ? Number.NaN : Date.parse(node.startedAt);
  const endedAt = node.endedAt === undefined ? Number.NaN : Date.parse(node.endedAt);
  return {
    id,
    agent: node.agent,
    state: node.state,
    attempts: node.attempts,
    ...(Number.isNaN(startedAt) || Number.isNaN(endedAt)
      ? {}
      : { durationMs: endedAt - startedAt }),
    ...(node.error === undefined ? {} : { error: node.error }),
    ...(node.failure === undefined || node.state !== 'failed' ? {} : { failure: node.failure }),
    ...(node.files === undefined || node.files.length === 0 ? {} : { files: node.files }),
  };
}

/**
 * The `result` artifact of a session that completed: its stored answer and a {@link RunResult}
 * rebuilt from the session (a resume of a completed session answers with it at once).
 * Undefined when the session has no result.
 */
export function storedResult(session: Session): { text: string; result: RunResult } | undefined {
  if (session.result === undefined) return undefined;
  const plan = session.plan ?? EMPTY_PLAN;
  return {
    text: session.result.text,
    result: {
      sessionId: session.id,
      plan,
      nodes: plan.nodes.flatMap((node) => {
        const recorded = session.nodes[node.id];
        return recorded === undefined ? [] : [sessionNodeReport(node.id, recorded)];
      }),
      citations: session.result.citations,
      failedNodes: session.result.failedNodes,
      composer: session.result.composer,
      ...(session.result.usage === undefined ? {} : { usage: session.result.usage }),
      ...(session.result.state === undefined ? {} : { state: session.result.state }),
      ...(session.files === undefined || session.files.length === 0
        ? {}
        : { files: session.files }),
    },
  };
}

/**
 * The executor's starting point for a resumed session: each recorded node as a
 * {@link ResumedNode}. A node whose approval or question was decided and marked delivered before
 * the restart does not wait again: it is `running`, with the continuation to send again (same
 * message id) should the agent task still show the very status it answered — the crash fell
 * between marking and sending — and otherwise only followed.
 */
export function resumedNodes(plan: Plan, session: Session): Record<string, ResumedNode> {
  const nodes: Record<string, ResumedNode> = {};
  for (const node of plan.nodes) {
    const recorded = session.nodes[node.id];
    if (recorded === undefined) continue;
    let state = recorded.state;
    const approval =
      recorded.approvalId === undefined ? undefined : session.approvals[recorded.approvalId];
    let redeliver: ResumedNode['redeliver'];
    if (approval !== undefined && approval.deliveredAt !== undefined && approval.kind !== 'plan') {
      if (state === 'waiting_approval' || state === 'waiting_input') state = 'running';
      const continuation = continuationFor(
        approval,
        approval.kind === 'node' ? recordedDecision(approval, recorded.effectiveTask) : undefined,
      );
      if (state === 'running' && continuation !== undefined && approval.askedStatus !== undefined) {
        redeliver = { continuation, answered: approval.askedStatus };
      }
    }
    const startedAt =
      recorded.startedAt === undefined ? Number.NaN : Date.parse(recorded.startedAt);
    const endedAt = recorded.endedAt === undefined ? Number.NaN : Date.parse(recorded.endedAt);
    // The node's files as the session keeps them (ids on the node, the files on the session).
    const files = (recorded.files ?? []).flatMap((id) => {
      const file = session.files?.find((entry) => entry.id === id);
      return file === undefined ? [] : [file];
    });
    nodes[node.id] = {
      agent: recorded.agent,
      state,
      attempts: recorded.attempts,
      ...(Number.isNaN(startedAt) ? {} : { startedAt }),
      ...(Number.isNaN(endedAt) ? {} : { endedAt }),
      ...(recorded.summary === undefined ? {} : { summary: recorded.summary }),
      ...(recorded.data === undefined ? {} : { data: recorded.data }),
      ...(recorded.error === undefined ? {} : { error: recorded.error }),
      ...(recorded.failure === undefined ? {} : { failure: recorded.failure }),
      ...(recorded.taskId === undefined ? {} : { taskId: recorded.taskId }),
      ...(recorded.approvalId === undefined ? {} : { approvalId: recorded.approvalId }),
      ...(recorded.effectiveTask === undefined ? {} : { effectiveTask: recorded.effectiveTask }),
      ...(redeliver === undefined ? {} : { redeliver }),
      ...(files.length === 0 ? {} : { files }),
    };
  }
  return nodes;
}

/**
 * The line a resumed run streams after `run-start`: where the session stands.
 *
 * @example
 * describeResume(session);
 * // 'Resuming session s-1: 1 of 3 steps done (search); waiting for approval: send; still to run: write.'
 */
export function describeResume(session: Session): string {
  const entries = Object.entries(session.nodes);
  const named = (states: readonly SessionNode['state'][]): string[] =>
    entries.filter(([, node]) => states.includes(node.state)).map(([id]) => id);
  const done = named(['completed', 'failed', 'rejected', 'skipped']);
  const waiting = named(['waiting_approval']);
  const asking = named(['waiting_input']);
  const running = named(['running']);
  const pending = named(['pending']);
  const planWaits = Object.values(session.approvals).some(
    (approval) => approval.kind === 'plan' && approval.status === 'pending',
  );
  const review = Object.values(session.approvals).find(
    (approval) => approval.kind === 'review' && approval.status === 'pending',
  );
  const parts = [
    session.plan === undefined
      ? 'no plan yet'
      : `${done.length} of ${entries.length} step${entries.length === 1 ? '' : 's'} done${done.length === 0 ? '' : ` (${done.join(', ')})`}`,
    ...(planWaits ? ['the plan waits for approval'] : []),
    ...(review === undefined
      ? []
      : [`the answer waits for review (round ${review.review?.round ?? 1})`]),
    ...(waiting.length === 0 ? [] : [`waiting for approval: ${waiting.join(', ')}`]),
    ...(asking.length === 0 ? [] : [`waiting for an answer: ${asking.join(', ')}`]),
    ...(running.length === 0 ? [] : [`under way: ${running.join(', ')}`]),
    ...(pending.length === 0 || planWaits ? [] : [`still to run: ${pending.join(', ')}`]),
  ];
  return `Resuming session ${session.id}: ${parts.join('; ')}.`;
}
