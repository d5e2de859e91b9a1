import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, InstructionMode, PlanNode } from '@fleet/a2a';
import { InternalError, NotFoundError } from '@fleet/errors';
import type { Approval, Session } from '@fleet/sessions';
import { classifyInstructions } from '../approvals';
import { isRunHandover, type ApprovalVerdict, type AwaitApproval } from '../execution';
import { approvalExpiry, type RunContext } from './run-context';
import { syncStatus } from './session-writer';
import { updateWithRetry } from './update-with-retry';

/**
 * The run's {@link AwaitApproval}: when a node's agent asks for consent, records a `node`
 * approval (or takes the one recorded before and not yet delivered, after a restart), marks the
 * node `waiting_approval`, streams `approval-required` and waits — only this node; the executor
 * keeps the other branches going. The wait ends with a person's decision (on any replica, heard
 * through the session's events), or at the approval's expiry, when it is marked `timed_out`.
 *
 * Then: instructions given with an approval are classified (`enhance` / `override`); the
 * approval's `deliveredAt` is set under the session's lock BEFORE the continuation is sent, so a
 * decision reaches the agent at most once (a decision found delivered already is not sent again:
 * the task is only followed); `approval-end` is streamed for every outcome. Deny, time-out and
 * expiry send a deny continuation and end the node `rejected` with the reason.
 *
 * When the run is canceled while the node waits, its agent task is canceled (best-effort).
 */
export function createAwaitApproval(run: RunContext): AwaitApproval {
  return async ({ node, taskId, task, approval: asked, signal }) => {
    const { sessions, sessionId } = run;
    await run.writer.written();
    const session = await sessions.get(sessionId);
    if (session === undefined) {
      throw new NotFoundError(`Session ${sessionId} does not exist or has expired.`);
    }
    let approval = undeliveredApproval(session, node.id);
    if (approval === undefined) {
      if (asked === undefined) {
        throw new InternalError(`Step ${node.id} waits for an approval that was never recorded.`);
      }
      approval = await sessions.addApproval(sessionId, {
        id: randomUUID(),
        kind: 'node',
        nodeId: node.id,
        agent: node.agent,
        action: asked.action,
        summary: asked.summary,
        preview: asked.preview,
        risk: asked.risk,
        expiresAt: approvalExpiry(run.hitlTimeoutMs, asked.expiresAt),
      });
    }
    const approvalId = approval.id;
    run.writer.record((draft) => {
      const recorded = draft.nodes[node.id];
      if (recorded === undefined) return;
      recorded.state = 'waiting_approval';
      recorded.approvalId = approvalId;
      recorded.taskId = taskId;
    });
    try {
      let decided = approval;
      if (decided.status === 'pending') {
        // Written before it is announced: a client told to approve finds the node waiting.
        await run.writer.written();
        announceApproval(run, decided);
        decided = await waitForDecision(run, { approval: decided, signal });
      }
      return await deliverDecision(run, { node, task, approval: decided, signal });
    } catch (error) {
      if (signal.aborted && !isRunHandover(signal.reason)) {
        void run.cancelAgentTask?.({ agent: node.agent, taskId }).catch(() => undefined);
      }
      throw error;
    }
  };
}

/** The node's latest approval whose decision has not reached the agent yet, if any. */
function undeliveredApproval(session: Session, nodeId: string): Approval | undefined {
  return Object.values(session.approvals)
    .filter(
      (approval) =>
        approval.kind === 'node' &&
        approval.nodeId === nodeId &&
        approval.deliveredAt === undefined,
    )
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
}

/** Streams `approval-required` for a pending approval. */
export function announceApproval(run: RunContext, approval: Approval): void {
  run.progress({
    type: 'approval-required',
    approvalId: approval.id,
    kind: approval.kind,
    ...(approval.nodeId === undefined ? {} : { nodeId: approval.nodeId }),
    ...(approval.agent === undefined ? {} : { agent: approval.agent }),
    action: approval.action,
    summary: approval.summary,
    preview: approval.preview,
    risk: approval.risk,
    expiresAt: approval.expiresAt,
  });
}

/** Streams `approval-end`. */
export function announceDecision(
  run: RunContext,
  { approval, mode }: { approval: Approval; mode?: InstructionMode | undefined },
): void {
  run.progress({
    type: 'approval-end',
    approvalId: approval.id,
    status: approval.status,
    ...(approval.instructions === undefined ? {} : { instructions: approval.instructions }),
    ...(mode === undefined ? {} : { mode }),
  });
}

/** Waits until the approval is decided, or marks it `timed_out` at its expiry. */
export function waitForDecision(
  run: RunContext,
  { approval, signal }: { approval: Approval; signal: AbortSignal },
): Promise<Approval> {
  return run.watch.waitForDecision({
    approvalId: approval.id,
    expiresAt: approval.expiresAt,
    signal,
    onExpired: () => timeOut(run, approval.id),
  });
}

/** Marks a still-pending approval `timed_out` (and says so on the session's channel). */
async function timeOut(run: RunContext, approvalId: string): Promise<Approval | undefined> {
  const outcome = await updateWithRetry(run.sessions, {
    id: run.sessionId,
    mutate: (draft) => {
      const approval = draft.approvals[approvalId];
      if (approval === undefined) return undefined;
      const changed = approval.status === 'pending';
      if (changed) {
        approval.status = 'timed_out';
        approval.decidedAt = new Date().toISOString();
        syncStatus(draft);
      }
      return { approval: { ...approval }, changed };
    },
  });
  if (outcome?.changed === true) {
    await run.sessions
      .publish(run.sessionId, { type: 'approval-decided', approvalId, status: 'timed_out' })
      .catch(() => undefined);
  }
  return outcome?.approval;
}

/** Why a step was not done, for an approval that was not granted. */
export function refusalReason(approval: Approval): string {
  switch (approval.status) {
    case 'denied':
      return approval.instructions === undefined || approval.instructions.trim() === ''
        ? 'denied by a person'
        : `denied by a person: ${approval.instructions.trim()}`;
    case 'timed_out':
      return 'approval timed out';
    case 'expired':
      return 'approval expired before anyone decided';
    case 'approved':
    case 'pending':
      return `approval ${approval.status}`;
  }
}

/**
 * Turns a decided node approval into the continuation, marks it delivered under the lock (at
 * most once) and streams `approval-end`.
 */
async function deliverDecision(
  run: RunContext,
  {
    node,
    task,
    approval,
    signal,
  }: { node: PlanNode; task: string; approval: Approval; signal: AbortSignal },
): Promise<ApprovalVerdict> {
  let decision: ApprovalDecision;
  let mode: InstructionMode | undefined;
  let effectiveTask: string | undefined;
  let reason: string | undefined;
  const instructions = approval.instructions?.trim();
  if (approval.status === 'approved') {
    if (instructions !== undefined && instructions !== '') {
      const classified = await classifyInstructions({
        task,
        instructions,
        llm: run.llm,
        signal,
        logger: run.logger,
      });
      mode = approval.mode ?? classified.mode;
      effectiveTask = classified.effectiveTask;
      decision = { decision: 'approve', instructions, mode, effectiveTask };
    } else {
      decision = { decision: 'approve' };
    }
  } else if (approval.status === 'pending') {
    throw new InternalError(`Approval ${approval.id} is still pending.`);
  } else {
    reason = refusalReason(approval);
    decision = {
      decision: 'deny',
      instructions: instructions !== undefined && instructions !== '' ? instructions : reason,
    };
  }

  await run.writer.written();
  const deliver = await updateWithRetry(run.sessions, {
    id: run.sessionId,
    mutate: (draft) => {
      const recorded = draft.approvals[approval.id];
      if (recorded === undefined || recorded.deliveredAt !== undefined) return false;
      recorded.deliveredAt = new Date().toISOString();
      if (mode !== undefined) recorded.mode = mode;
      const recordedNode = draft.nodes[node.id];
      if (recordedNode !== undefined && decision.decision === 'approve') {
        recordedNode.state = 'running';
        if (effectiveTask !== undefined) recordedNode.effectiveTask = effectiveTask;
      }
      syncStatus(draft);
      return true;
    },
  });
  announceDecision(run, { approval, mode });
  run.logger.info(
    {
      ...run.log,
      nodeId: node.id,
      approvalId: approval.id,
      status: approval.status,
      mode,
      deliver,
    },
    'approval decided',
  );
  return {
    approvalId: approval.id,
    decision,
    deliver,
    ...(reason === undefined ? {} : { reason }),
    ...(effectiveTask === undefined ? {} : { effectiveTask }),
  };
}
