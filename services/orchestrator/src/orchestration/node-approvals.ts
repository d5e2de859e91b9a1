import { randomUUID } from 'node:crypto';
import {
  answerMessageId,
  decisionMessageId,
  decisionParts,
  textPart,
  type ApprovalDecision,
  type InstructionMode,
  type PlanNode,
} from '@fleet/a2a';
import { InternalError, NotFoundError } from '@fleet/errors';
import type { Approval, Session } from '@fleet/sessions';
import { classifyInstructions } from '../approvals';
import {
  isRunHandover,
  type ApprovalVerdict,
  type AwaitApproval,
  type Continuation,
  type NodeApprovalRequest,
} from '../execution';
import { approvalExpiry, type RunContext } from './run-context';
import { syncStatus } from './session-writer';
import { updateWithRetry } from './update-with-retry';

/**
 * The run's {@link AwaitApproval}: when a node's agent asks for consent or asks a question,
 * records a `node` approval or an `input` question (or takes the one recorded before and not yet
 * delivered, after a restart), marks the node `waiting_approval` / `waiting_input`, streams
 * `approval-required` / `input-required` and waits — only this node; the executor keeps the other
 * branches going. The wait ends with a person's decision or answer (on any replica, heard through
 * the session's events), or at the expiry, when it is marked `timed_out`.
 *
 * Then: instructions given with an approval are classified (`enhance` / `override`); the
 * record's `deliveredAt` is set under the session's lock BEFORE the continuation is sent, so a
 * decision reaches the agent at most once (a decision found delivered already is not sent again:
 * the task is only followed); `approval-end` / `input-end` is streamed for every outcome. Deny,
 * time-out and expiry of an approval send a deny continuation and end the node `rejected`; a
 * question nobody answered in time cancels the agent task and ends the node `rejected`.
 *
 * Every continuation carries a stable message id ({@link decisionMessageId},
 * {@link answerMessageId}), so a re-send after a crash is recognisable as the same message.
 *
 * When the run is canceled while the node waits, its agent task is canceled (best-effort).
 */
export function createAwaitApproval(run: RunContext): AwaitApproval {
  return async (request) => {
    const { node, taskId, task, kind, signal } = request;
    const { sessions, sessionId } = run;
    await run.writer.written();
    const session = await sessions.get(sessionId);
    if (session === undefined) {
      throw new NotFoundError(`Session ${sessionId} does not exist or has expired.`);
    }
    let approval = undeliveredApproval(session, node.id, kind);
    if (approval === undefined) approval = await recordRequest(run, request);
    const approvalId = approval.id;
    run.writer.record((draft) => {
      const recorded = draft.nodes[node.id];
      if (recorded === undefined) return;
      recorded.state = kind === 'input' ? 'waiting_input' : 'waiting_approval';
      recorded.approvalId = approvalId;
      recorded.taskId = taskId;
    });
    try {
      let decided = approval;
      if (decided.status === 'pending') {
        // Written before it is announced: a client told to approve finds the node waiting.
        await run.writer.written();
        if (kind === 'input') announceQuestion(run, decided);
        else announceApproval(run, decided);
        const pending = decided;
        const wait = (): Promise<Approval> =>
          waitForDecision(run, { approval: pending, signal, agent: node.agent, taskId });
        // Waiting for a person takes no slot: the tenant's other runs go on meanwhile.
        decided = run.slot === undefined ? await wait() : await run.slot.parkWhile(wait);
      }
      if (kind === 'input' && decided.status !== 'answered' && decided.status !== 'withdrawn') {
        void run.cancelAgentTask?.({ agent: node.agent, taskId }).catch(() => undefined);
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

/** Records what a node's agent asks: a `node` approval, or an `input` question. */
async function recordRequest(run: RunContext, request: NodeApprovalRequest): Promise<Approval> {
  const { node, kind, approval: asked, question, asked: askedStatus } = request;
  const common = {
    id: randomUUID(),
    nodeId: node.id,
    agent: node.agent,
    ...(askedStatus === undefined ? {} : { askedStatus }),
  };
  if (kind === 'input') {
    if (question === undefined) {
      throw new InternalError(`Step ${node.id} waits for an answer to a question never recorded.`);
    }
    return run.sessions.addApproval(run.sessionId, {
      ...common,
      kind: 'input',
      action: 'answer-question',
      summary: firstLine(question),
      preview: question,
      risk: 'low',
      expiresAt: approvalExpiry(run.hitlTimeoutMs),
    });
  }
  if (asked === undefined) {
    throw new InternalError(`Step ${node.id} waits for an approval that was never recorded.`);
  }
  return run.sessions.addApproval(run.sessionId, {
    ...common,
    kind: 'node',
    action: asked.action,
    summary: asked.summary,
    preview: asked.preview,
    risk: asked.risk,
    ...(asked.riskDescription === undefined ? {} : { riskDescription: asked.riskDescription }),
    expiresAt: approvalExpiry(run.hitlTimeoutMs, asked.expiresAt),
  });
}

function firstLine(text: string): string {
  const line = text.split('\n').find((entry) => entry.trim() !== '') ?? text;
  return line.trim().slice(0, 1000) || 'The agent asks a question.';
}

/** The node's latest approval (or question) whose decision has not reached the agent yet, if any. */
function undeliveredApproval(
  session: Session,
  nodeId: string,
  kind: 'approval' | 'input',
): Approval | undefined {
  const wanted = kind === 'input' ? 'input' : 'node';
  return Object.values(session.approvals)
    .filter(
      (approval) =>
        approval.kind === wanted &&
        approval.nodeId === nodeId &&
        approval.deliveredAt === undefined,
    )
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
}

/** Streams `input-required` for a pending question. */
export function announceQuestion(run: RunContext, input: Approval): void {
  run.progress({
    type: 'input-required',
    inputId: input.id,
    nodeId: input.nodeId ?? '?',
    agent: input.agent ?? '?',
    question: input.preview,
    expiresAt: input.expiresAt,
  });
}

/** Streams `approval-required` for a pending approval. */
export function announceApproval(run: RunContext, approval: Approval): void {
  run.progress({
    type: 'approval-required',
    approvalId: approval.id,
    kind: approval.kind === 'plan' ? 'plan' : 'node',
    ...(approval.nodeId === undefined ? {} : { nodeId: approval.nodeId }),
    ...(approval.agent === undefined ? {} : { agent: approval.agent }),
    action: approval.action,
    summary: approval.summary,
    preview: approval.preview,
    risk: approval.risk,
    ...(approval.riskDescription === undefined
      ? {}
      : { riskDescription: approval.riskDescription }),
    expiresAt: approval.expiresAt,
  });
}

/** Streams `approval-end` (or `input-end` for a question). */
export function announceDecision(
  run: RunContext,
  { approval, mode }: { approval: Approval; mode?: InstructionMode | undefined },
): void {
  if (approval.kind === 'input') {
    run.progress({ type: 'input-end', inputId: approval.id, status: approval.status });
    return;
  }
  run.progress({
    type: 'approval-end',
    approvalId: approval.id,
    status: approval.status,
    ...(approval.instructions === undefined ? {} : { instructions: approval.instructions }),
    ...(mode === undefined ? {} : { mode }),
  });
}

/**
 * Waits until the approval is decided, or marks it `timed_out` at its expiry. With the node's
 * agent task (`agent`, `taskId`), also reads that task every `agentTaskCheckMs`: one that ended at
 * the agent (canceled, failed, rejected) or is gone makes the approval `withdrawn` at once, so
 * nobody is asked to approve what can no longer happen.
 */
export async function waitForDecision(
  run: RunContext,
  {
    approval,
    signal,
    agent,
    taskId,
  }: { approval: Approval; signal: AbortSignal; agent?: string; taskId?: string },
): Promise<Approval> {
  const watching = new AbortController();
  const decided = run.watch.waitForDecision({
    approvalId: approval.id,
    expiresAt: approval.expiresAt,
    signal: AbortSignal.any([signal, watching.signal]),
    onExpired: () => timeOut(run, approval.id),
  });
  if (run.agentTaskState === undefined || agent === undefined || taskId === undefined) {
    return decided;
  }
  const ended = watchAgentTask(run, { agent, taskId, signal: watching.signal }).then((state) =>
    state === undefined ? undefined : withdraw(run, { approvalId: approval.id, state }),
  );
  try {
    const first = await Promise.race([decided, ended]);
    if (first !== undefined) return first;
    return await decided;
  } finally {
    watching.abort();
    decided.catch(() => undefined);
    ended.catch(() => undefined);
  }
}

/** Agent task states after which nothing the agent asked can happen. */
const ENDED_AGENT_STATES: ReadonlySet<string> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_FAILED',
  'TASK_STATE_REJECTED',
  'gone',
]);

/** Reads the agent task until it has ended (its state) or `signal` aborts (undefined). */
async function watchAgentTask(
  run: RunContext,
  { agent, taskId, signal }: { agent: string; taskId: string; signal: AbortSignal },
): Promise<string | undefined> {
  const every = run.agentTaskCheckMs ?? 5000;
  while (!signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, every);
      timer.unref();
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    if (signal.aborted) return undefined;
    const state = await run.agentTaskState?.({ agent, taskId, signal }).catch(() => undefined);
    if (state !== undefined && ENDED_AGENT_STATES.has(state)) return state;
  }
  return undefined;
}

/**
 * Ends a still-pending approval with `status` (`timed_out`, or `withdrawn` when its agent task
 * ended) and says so on the session's channel; the approval as it stands when someone decided
 * first. True in `changed` when this call ended it.
 */
async function endPending(
  run: RunContext,
  { approvalId, status }: { approvalId: string; status: 'timed_out' | 'withdrawn' },
): Promise<{ approval: Approval; changed: boolean } | undefined> {
  const outcome = await updateWithRetry(run.sessions, {
    id: run.sessionId,
    mutate: (draft) => {
      const approval = draft.approvals[approvalId];
      if (approval === undefined) return undefined;
      const changed = approval.status === 'pending';
      if (changed) {
        approval.status = status;
        approval.decidedAt = new Date().toISOString();
        syncStatus(draft);
      }
      return { approval: { ...approval }, changed };
    },
  });
  if (outcome?.changed === true) {
    await run.sessions
      .publish(run.sessionId, { type: 'approval-decided', approvalId, status })
      .catch(() => undefined);
  }
  return outcome;
}

/** Marks a still-pending approval `withdrawn`: its agent task ended as `state`. */
async function withdraw(
  run: RunContext,
  { approvalId, state }: { approvalId: string; state: string },
): Promise<Approval | undefined> {
  const outcome = await endPending(run, { approvalId, status: 'withdrawn' });
  if (outcome?.changed === true) {
    run.logger.info(
      { ...run.log, approvalId, agentTaskState: state },
      'approval withdrawn: its agent task ended',
    );
  }
  return outcome?.approval;
}

/** Marks a still-pending approval `timed_out` (and says so on the session's channel). */
async function timeOut(run: RunContext, approvalId: string): Promise<Approval | undefined> {
  return (await endPending(run, { approvalId, status: 'timed_out' }))?.approval;
}

/** Why a step was not done, for an approval that was not granted (or a question not answered). */
export function refusalReason(approval: Approval): string {
  if (approval.kind === 'input') {
    if (approval.status === 'withdrawn') {
      return 'its agent ended the task before anyone answered its question';
    }
    return approval.status === 'expired'
      ? 'its question expired before anyone answered'
      : 'its question was not answered in time';
  }
  switch (approval.status) {
    case 'denied':
      return approval.instructions === undefined || approval.instructions.trim() === ''
        ? 'denied by a person'
        : `denied by a person: ${approval.instructions.trim()}`;
    case 'timed_out':
      return 'approval timed out';
    case 'expired':
      return 'approval expired before anyone decided';
    case 'withdrawn':
      return 'its agent ended the task before anyone decided, so nothing was done';
    case 'approved':
    case 'answered':
    case 'pending':
      return `approval ${approval.status}`;
  }
}

/**
 * The continuation that carries a decided approval's decision (or a question's answer) to the
 * agent, with its stable message id: what {@link deliverDecision} sends and what a resumed run
 * sends again when the agent provably never got it. Undefined for a question nobody answered.
 */
export function continuationFor(
  approval: Approval,
  decision?: ApprovalDecision,
): Continuation | undefined {
  if (approval.kind === 'input') {
    if (approval.status !== 'answered' || approval.answer === undefined) return undefined;
    return { messageId: answerMessageId(approval.id), parts: [textPart(approval.answer)] };
  }
  return {
    messageId: decisionMessageId(approval.id),
    parts: decisionParts(decision ?? recordedDecision(approval)),
  };
}

/** The decision a decided approval stands for, as recorded (instructions and mode included). */
export function recordedDecision(approval: Approval, effectiveTask?: string): ApprovalDecision {
  const instructions = approval.instructions?.trim();
  const given = instructions !== undefined && instructions !== '';
  if (approval.status === 'approved') {
    return given
      ? {
          decision: 'approve',
          instructions,
          ...(approval.mode === undefined ? {} : { mode: approval.mode }),
          ...(effectiveTask === undefined ? {} : { effectiveTask }),
        }
      : { decision: 'approve' };
  }
  return { decision: 'deny', instructions: given ? instructions : refusalReason(approval) };
}

/**
 * Turns a decided node approval (or answered question) into the continuation, marks it delivered
 * under the lock (at most once) and streams `approval-end` / `input-end`.
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
  if (approval.status === 'pending') {
    throw new InternalError(`Approval ${approval.id} is still pending.`);
  }
  let decision: ApprovalDecision | undefined;
  let mode: InstructionMode | undefined;
  let effectiveTask: string | undefined;
  let reason: string | undefined;
  let result: ApprovalVerdict['result'];
  const instructions = approval.instructions?.trim();
  if (approval.status === 'withdrawn') {
    result = 'withdrawn';
    reason = refusalReason(approval);
  } else if (approval.kind === 'input') {
    result = approval.status === 'answered' ? 'answer' : 'unanswered';
    if (result === 'unanswered') reason = refusalReason(approval);
  } else if (approval.status === 'approved') {
    result = 'approve';
    if (instructions !== undefined && instructions !== '') {
      const classified = await run.usage.measure('approval-instructions', () =>
        classifyInstructions({ task, instructions, llm: run.llm, signal, logger: run.logger }),
      );
      mode = approval.mode ?? classified.mode;
      effectiveTask = classified.effectiveTask;
      decision = { decision: 'approve', instructions, mode, effectiveTask };
    } else {
      decision = { decision: 'approve' };
    }
  } else {
    result = 'deny';
    reason = refusalReason(approval);
    decision = recordedDecision(approval);
  }
  const goesOn = result === 'approve' || result === 'answer';

  await run.writer.written();
  const deliver = await updateWithRetry(run.sessions, {
    id: run.sessionId,
    mutate: (draft) => {
      const recorded = draft.approvals[approval.id];
      if (recorded === undefined || recorded.deliveredAt !== undefined) return false;
      recorded.deliveredAt = new Date().toISOString();
      if (mode !== undefined) recorded.mode = mode;
      const recordedNode = draft.nodes[node.id];
      if (recordedNode !== undefined && goesOn) {
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
      kind: approval.kind,
      status: approval.status,
      mode,
      deliver,
    },
    approval.kind === 'input' ? 'question settled' : 'approval decided',
  );
  return {
    approvalId: approval.id,
    result,
    continuation: continuationFor(approval, decision),
    answered: approval.askedStatus,
    deliver,
    ...(reason === undefined ? {} : { reason }),
    ...(effectiveTask === undefined ? {} : { effectiveTask }),
  };
}
