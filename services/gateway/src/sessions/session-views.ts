import type {
  AgentSteering,
  ApprovalStatus,
  Citation,
  InstructionMode,
  NodeReport,
  NodeState,
  Plan,
  ReviewDecisionKind,
  ReviewStep,
  Risk,
  RunResult,
  RunState,
  StepFailure,
} from '@fleet/a2a';
import type { Approval, ApprovalKind, Session, SessionStatus } from '@fleet/sessions';
import { toFileView, type FileView } from '../files/files-router';

/**
 * How sessions, approvals and questions look on the public API (docs/architecture.md §3). Built field by field
 * from the stored session, so internal fields (the orchestrator's and agents' A2A task ids,
 * delivery marks, the tenant) never reach a client, whatever the store adds later.
 */

/** One approval as `GET /v1/sessions/{id}/approvals` lists it. */
export interface ApprovalView {
  id: string;
  /**
   * `node`: an agent's action; `plan`: the whole plan, before any agent runs (reviews of the
   * answer are listed under the session's `reviews`, questions under `inputs`).
   */
  kind: ApprovalKind;
  status: ApprovalStatus;
  /** Null for plan approvals. */
  nodeId: string | null;
  /** Null for plan approvals. */
  agent: string | null;
  action: string;
  summary: string;
  preview: string;
  risk: Risk;
  /** The agent's own words for the risk, when it gave words. */
  riskDescription?: string;
  createdAt: string;
  expiresAt: string;
  decidedAt?: string;
  instructions?: string;
  mode?: InstructionMode;
}

/** One question a node's agent asked, as `GET /v1/sessions/{id}/inputs` lists it. */
export interface InputView {
  id: string;
  /** `pending` until answered (`answered`); `expired` when nobody answered in time. */
  status: ApprovalStatus;
  nodeId: string | null;
  agent: string | null;
  /** The whole question, as the agent asked it. */
  question: string;
  createdAt: string;
  expiresAt: string;
  answeredAt?: string;
  answer?: string;
}

/**
 * One round of a result review (`resultReview`), as the session's `reviews` list it: the answer and
 * each step's result put up for review and, once decided, what was decided and what it re-ran.
 */
export interface ReviewView {
  /** The review's approval id (`review-required`'s `approvalId`). */
  id: string;
  /** 1 for the first answer, 2 after the first revision, … */
  round: number;
  /** `pending` until decided: `approved`, `denied` (sent back) or `expired` (the time-out decided). */
  status: ApprovalStatus;
  answer: string;
  steps: ReviewStep[];
  decision?: ReviewDecisionKind;
  /** The steps a `revise` named. */
  targets?: string[];
  feedback?: string;
  /** The steps that ran again for the decision (the targets and their dependents). */
  rerun?: string[];
  /** Dependents of a target that kept their result: their approved action was carried out. */
  kept?: string[];
  /** True when nobody decided in time and the time-out decided. */
  timedOut?: boolean;
  createdAt: string;
  expiresAt: string;
  decidedAt?: string;
}

/** One node of a session's plan, as the session shows it. */
export interface SessionNodeView {
  agent: string;
  state: NodeState;
  attempts: number;
  startedAt?: string;
  endedAt?: string;
  summary?: string;
  data?: unknown;
  error?: string;
  /** A failed node: whether it failed for a reason of its task or of the fleet. */
  failure?: StepFailure;
  approvalId?: string;
  effectiveTask?: string;
  /** A review sent the step back (`revise`): the round that did and its feedback. */
  revision?: { round: number; feedback: string };
}

/** A session as `GET /v1/sessions` lists it. */
export interface SessionSummary {
  id: string;
  status: SessionStatus;
  createdAt: string;
  updatedAt: string;
  request: string;
  /** How many approvals wait for a decision. */
  pendingApprovals: number;
  /** How many questions wait for an answer. */
  pendingInputs: number;
  /** Whether the composed answer waits for a person's review (`POST /v1/sessions/{id}/review`). */
  awaitingReview: boolean;
}

/** A session as `GET /v1/sessions/{id}` shows it. */
export interface SessionView {
  id: string;
  status: SessionStatus;
  createdAt: string;
  updatedAt: string;
  request: string;
  planApproval: boolean;
  /** Whether a person reviews the composed answer before it is sent (`X-Result-Review`). */
  resultReview: boolean;
  /** Agents or skills the run prefers, requires or leaves out (`X-Fleet-Agents`); absent: none. */
  steering?: AgentSteering;
  /** The plan; a step added while the run went (a hand-off, a re-plan) carries its `origin`. */
  plan: Plan | null;
  nodes: Record<string, SessionNodeView>;
  /** Approvals of kinds `node` and `plan`, oldest first. */
  approvals: ApprovalView[];
  /** The questions agents asked, oldest first. */
  inputs: InputView[];
  /** Every round of the answer's review, oldest first (empty without `resultReview`). */
  reviews: ReviewView[];
  result: {
    text: string;
    citations: Citation[];
    composer: 'llm' | 'offline';
    failedNodes: string[];
    /** How much of the work was done (absent for sessions that predate it). */
    state?: RunState;
  } | null;
  error: string | null;
  /**
   * The files the run keeps (its steps' and the request's attachments), in the order they came,
   * each with its content path; absent when it keeps none.
   */
  files?: FileView[];
}

/** An approval for the public API. */
export function toApprovalView(approval: Approval): ApprovalView {
  return {
    id: approval.id,
    kind: approval.kind,
    status: approval.status,
    nodeId: approval.nodeId ?? null,
    agent: approval.agent ?? null,
    action: approval.action,
    summary: approval.summary,
    preview: approval.preview,
    risk: approval.risk,
    ...(approval.riskDescription === undefined
      ? {}
      : { riskDescription: approval.riskDescription }),
    createdAt: approval.createdAt,
    expiresAt: approval.expiresAt,
    ...(approval.decidedAt === undefined ? {} : { decidedAt: approval.decidedAt }),
    ...(approval.instructions === undefined ? {} : { instructions: approval.instructions }),
    ...(approval.mode === undefined ? {} : { mode: approval.mode }),
  };
}

/** A question (an approval record of kind `input`) for the public API. */
export function toInputView(input: Approval): InputView {
  return {
    id: input.id,
    status: input.status,
    nodeId: input.nodeId ?? null,
    agent: input.agent ?? null,
    question: input.preview,
    createdAt: input.createdAt,
    expiresAt: input.expiresAt,
    ...(input.status === 'answered' && input.decidedAt !== undefined
      ? { answeredAt: input.decidedAt }
      : {}),
    ...(input.answer === undefined ? {} : { answer: input.answer }),
  };
}

/** Which approval records a list shows: approvals (`node`, `plan`), questions or reviews. */
export type RecordKind = 'approvals' | 'inputs' | 'reviews';

function recordKindOf(kind: ApprovalKind): RecordKind {
  if (kind === 'input') return 'inputs';
  if (kind === 'review') return 'reviews';
  return 'approvals';
}

/**
 * A session's approval records of one kind, oldest first: its approvals (kinds `node` and
 * `plan`), its questions (kind `input`) or its reviews (kind `review`).
 */
export function sessionRecords(session: Session, kind: RecordKind): Approval[] {
  return Object.values(session.approvals)
    .filter((approval) => recordKindOf(approval.kind) === kind)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/** A session's approvals (kinds `node` and `plan`: not questions, not reviews), oldest first. */
export function approvalViews(session: Session): ApprovalView[] {
  return sessionRecords(session, 'approvals').map(toApprovalView);
}

/** A session's questions (kind `input`), oldest first. */
export function inputViews(session: Session): InputView[] {
  return sessionRecords(session, 'inputs').map(toInputView);
}

/**
 * A review (an approval record of kind `review`) for the public API. A record without its round
 * (none is written so) shows as round `fallbackRound` with the approval's preview as its answer.
 */
export function toReviewView(approval: Approval, fallbackRound = 1): ReviewView {
  const round = approval.review;
  return {
    id: approval.id,
    round: round?.round ?? fallbackRound,
    status: approval.status,
    answer: round?.answer ?? approval.preview,
    steps: round?.steps ?? [],
    ...(round?.decision === undefined ? {} : { decision: round.decision }),
    ...(round?.targets === undefined ? {} : { targets: round.targets }),
    ...(round?.feedback === undefined ? {} : { feedback: round.feedback }),
    ...(round?.rerun === undefined ? {} : { rerun: round.rerun }),
    ...(round?.kept === undefined ? {} : { kept: round.kept }),
    ...(round?.timedOut === undefined ? {} : { timedOut: round.timedOut }),
    createdAt: approval.createdAt,
    expiresAt: approval.expiresAt,
    ...(approval.decidedAt === undefined ? {} : { decidedAt: approval.decidedAt }),
  };
}

/** A session's review rounds (kind `review`), oldest first. */
export function reviewViews(session: Session): ReviewView[] {
  return sessionRecords(session, 'reviews').map((approval, index) =>
    toReviewView(approval, index + 1),
  );
}

/** A session for `GET /v1/sessions`. */
export function toSessionSummary(session: Session): SessionSummary {
  return {
    id: session.id,
    status: session.status,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    request: session.request,
    pendingApprovals: sessionRecords(session, 'approvals').filter(
      (approval) => approval.status === 'pending',
    ).length,
    pendingInputs: sessionRecords(session, 'inputs').filter((input) => input.status === 'pending')
      .length,
    awaitingReview: sessionRecords(session, 'reviews').some(
      (review) => review.status === 'pending',
    ),
  };
}

/** A session for `GET /v1/sessions/{id}` (and the answer of a cancel). */
export function toSessionView(session: Session): SessionView {
  const nodes: Record<string, SessionNodeView> = {};
  for (const [id, node] of Object.entries(session.nodes)) {
    nodes[id] = {
      agent: node.agent,
      state: node.state,
      attempts: node.attempts,
      ...(node.startedAt === undefined ? {} : { startedAt: node.startedAt }),
      ...(node.endedAt === undefined ? {} : { endedAt: node.endedAt }),
      ...(node.summary === undefined ? {} : { summary: node.summary }),
      ...(node.data === undefined ? {} : { data: node.data }),
      ...(node.error === undefined ? {} : { error: node.error }),
      ...(node.failure === undefined ? {} : { failure: node.failure }),
      ...(node.approvalId === undefined ? {} : { approvalId: node.approvalId }),
      ...(node.effectiveTask === undefined ? {} : { effectiveTask: node.effectiveTask }),
      ...(node.revision === undefined ? {} : { revision: node.revision }),
    };
  }
  return {
    id: session.id,
    status: session.status,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    request: session.request,
    planApproval: session.planApproval,
    resultReview: session.resultReview === true,
    ...(session.steering === undefined ? {} : { steering: session.steering }),
    plan: session.plan ?? null,
    nodes,
    approvals: approvalViews(session),
    inputs: inputViews(session),
    reviews: reviewViews(session),
    result:
      session.result === undefined
        ? null
        : {
            text: session.result.text,
            citations: session.result.citations,
            composer: session.result.composer,
            failedNodes: session.result.failedNodes,
            ...(session.result.state === undefined ? {} : { state: session.result.state }),
          },
    error: session.error ?? null,
    ...(session.files === undefined || session.files.length === 0
      ? {}
      : { files: session.files.map(toFileView) }),
  };
}

/**
 * The `RunResult` a completed session's answer carries (the `fleet` object of a stored answer),
 * or undefined when the session has no plan or result to report.
 */
export function storedRunResult(session: Session): RunResult | undefined {
  if (session.plan === undefined || session.result === undefined) return undefined;
  const nodes: NodeReport[] = session.plan.nodes.map(({ id, agent }) => {
    const node = session.nodes[id];
    if (node === undefined) return { id, agent, state: 'pending', attempts: 0 };
    const started = node.startedAt === undefined ? Number.NaN : Date.parse(node.startedAt);
    const ended = node.endedAt === undefined ? Number.NaN : Date.parse(node.endedAt);
    return {
      id,
      agent: node.agent,
      state: node.state,
      attempts: node.attempts,
      ...(Number.isNaN(started) || Number.isNaN(ended) ? {} : { durationMs: ended - started }),
      ...(node.error === undefined ? {} : { error: node.error }),
      ...(node.failure === undefined || node.state !== 'failed' ? {} : { failure: node.failure }),
    };
  });
  return {
    sessionId: session.id,
    plan: session.plan,
    nodes,
    citations: session.result.citations,
    failedNodes: session.result.failedNodes,
    composer: session.result.composer,
    ...(session.result.usage === undefined ? {} : { usage: session.result.usage }),
    ...(session.result.state === undefined ? {} : { state: session.result.state }),
    ...(session.files === undefined || session.files.length === 0 ? {} : { files: session.files }),
  };
}
