import {
  approvalStatusSchema,
  isFleetFailure,
  citationSchema,
  historyMessageSchema,
  instructionModeSchema,
  nodeStateSchema,
  planSchema,
  riskSchema,
  runFileSchema,
  runStateSchema,
  runUsageSchema,
  stepFailureSchema,
  stepUsageSchema,
  toolPolicySchema,
  agentSteeringSchema,
  reviewRoundSchema,
} from '@fleet/a2a';
import { z } from 'zod';

/**
 * What an approval is about: one node's action, the whole plan before any agent runs, or — `input`
 * — a question a node's agent asked (TASK_STATE_INPUT_REQUIRED), answered with text. Questions
 * share the approvals' storage, expiry, events and at-most-once delivery; the API shows them apart
 * (`/approvals` and `/inputs`). `review`: a person's review of the composed answer
 * (`resultReview`), decided with `POST /v1/sessions/{id}/review`; its round is in `review`.
 */
export const approvalKindSchema = z.enum(['node', 'plan', 'input', 'review']);
export type ApprovalKind = z.infer<typeof approvalKindSchema>;

/**
 * A request for a person's consent and, once given or refused, the decision (docs/architecture.md §3,
 * §6). Times are ISO-8601 strings.
 */
export const approvalSchema = z.object({
  id: z.string().min(1),
  kind: approvalKindSchema,
  status: approvalStatusSchema,
  /** The node that waits for it (kind `node`). */
  nodeId: z.string().optional(),
  /** The agent that asked (kind `node`). */
  agent: z.string().optional(),
  /** A short machine-readable name: `send-mail`, `run-code`, `run-plan`. */
  action: z.string(),
  /** One sentence a person can decide on. */
  summary: z.string(),
  /** What will happen, in full: the mail, the code, the plan. */
  preview: z.string(),
  risk: riskSchema,
  /** The agent's own words for the risk, when it gave words instead of a level. */
  riskDescription: z.string().optional(),
  createdAt: z.string(),
  /** After this time a pending approval can no longer be decided: it becomes `expired`. */
  expiresAt: z.string(),
  /** When the status left `pending`. */
  decidedAt: z.string().optional(),
  /** What the person added to the decision. */
  instructions: z.string().optional(),
  /** How the instructions apply to the task (set by the orchestrator). */
  mode: instructionModeSchema.optional(),
  /** Set by the orchestrator when it has sent the decision to the agent (at-most-once delivery). */
  deliveredAt: z.string().optional(),
  /** The person's answer (kind `input`, status `answered`). */
  answer: z.string().optional(),
  /**
   * The agent task status that asked (kind `node` / `input`): after a crash, a decision is sent
   * again (with the same message id) only while the task still shows this very status.
   */
  askedStatus: z
    .object({
      state: z.string(),
      timestamp: z.string().optional(),
      messageId: z.string().optional(),
    })
    .optional(),
  /**
   * The review round (kind `review`): the answer and step results put up for review and, once
   * decided, the decision (`approved`: the answer stands; `denied`: sent back with a `revise`,
   * `replan` or `recompose`; `expired`: the time-out decided, `review.decision` says how).
   */
  review: reviewRoundSchema.optional(),
});
export type Approval = z.infer<typeof approvalSchema>;

/** One plan node as the session records it. Times are ISO-8601 strings. */
export const sessionNodeSchema = z.object({
  agent: z.string(),
  state: nodeStateSchema,
  attempts: z.number().int().min(0),
  startedAt: z.string().optional(),
  endedAt: z.string().optional(),
  /** The agent's answer text. */
  summary: z.string().optional(),
  /** The agent's structured output, kept so a resumed run can feed the node's dependents. */
  data: z.unknown().optional(),
  error: z.string().optional(),
  /** Set on a failed node: failed for a reason of its task or of the fleet (`StepFailure`). */
  failure: stepFailureSchema.optional(),
  /** The agent's A2A task (for GetTask, CancelTask and approval continuations). */
  taskId: z.string().optional(),
  /** The approval the node waits for, or waited for. */
  approvalId: z.string().optional(),
  /** The task as actually carried out, when a person's instructions changed it. */
  effectiveTask: z.string().optional(),
  /** The ids of the files the step made that the run keeps (the session's `files`). */
  files: z.array(z.string()).optional(),
  /**
   * A review sent the step back (`revise`): it runs again with this feedback (the round that
   * asked for it); kept on the node once it ran, so the session shows why it ran again.
   */
  revision: z.object({ round: z.number().int().min(1), feedback: z.string() }).optional(),
});
export type SessionNode = z.infer<typeof sessionNodeSchema>;

/** A session's lifecycle. */
export const sessionStatusSchema = z.enum([
  'running',
  'waiting_approval',
  'waiting_input',
  'completed',
  'failed',
  'canceled',
]);
export type SessionStatus = z.infer<typeof sessionStatusSchema>;

/** The final answer, once composed. */
export const sessionResultSchema = z.object({
  text: z.string(),
  citations: z.array(citationSchema),
  composer: z.enum(['llm', 'offline']),
  failedNodes: z.array(z.string()),
  /** The run's model usage (docs/architecture.md §3), so a stored answer reports it too. */
  usage: runUsageSchema.optional(),
  /** How much of the run's work was done (`RunState`); absent in sessions that predate it. */
  state: runStateSchema.optional(),
});
export type SessionResult = z.infer<typeof sessionResultSchema>;

/**
 * One orchestrated workflow as it is stored at `fleet:{id}:session` (docs/architecture.md §6). Parsed
 * on every read: Redis content is external text (CONTRIBUTING.md convention 10). `history`, `planApproval`
 * and `approvals` default when absent, so sessions written before they existed still read.
 */
export const sessionSchema = z.object({
  id: z.string().min(1),
  /** The owner; a session is shown only to its tenant. */
  tenant: z.string(),
  status: sessionStatusSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  /** The user's request text. */
  request: z.string(),
  /** The conversation before the request. */
  history: z.array(historyMessageSchema).default([]),
  /** Whether a person must approve the plan before any agent runs. */
  planApproval: z.boolean().default(false),
  /** Whether a person reviews the composed answer before it is sent (`resultReview`). */
  resultReview: z.boolean().optional(),
  /**
   * Which MCP tools the tenant may use in this session (`fleet.toolPolicy` of the request that
   * started it, or of the latest resume that carried one): a resume without one keeps it.
   * Absent: every tool.
   */
  toolPolicy: toolPolicySchema.optional(),
  /**
   * Agents or skills the run prefers, requires or leaves out (`fleet.steering` of the request that
   * started it, or of the latest resume that carried one): a resume without one keeps it.
   * Absent: no steering.
   */
  steering: agentSteeringSchema.optional(),
  /** The orchestrator's A2A task currently running the session. */
  taskId: z.string().optional(),
  plan: planSchema.optional(),
  /** Where the plan came from. */
  planSource: z.enum(['llm', 'heuristic', 'request']).optional(),
  /** Instructions given with denied plans, oldest first (re-planning feedback). */
  planFeedback: z.array(z.string()).optional(),
  nodes: z.record(z.string(), sessionNodeSchema),
  approvals: z.record(z.string(), approvalSchema).default({}),
  result: sessionResultSchema.optional(),
  /**
   * The model usage of the run's steps so far (planner, nodes, composer, …): a resumed run adds to
   * it instead of starting from nothing.
   */
  usage: z.array(stepUsageSchema).optional(),
  /**
   * The files the run keeps (the steps' and the request's attachments), in the order they came;
   * the bytes are in the file store (`GET /v1/files/{id}/content`).
   */
  files: z.array(runFileSchema).optional(),
  /**
   * Why the run failed, when it did (status `failed`): the fleet's failure, or what went wrong
   * with the steps of a run answered with that explanation (its `result`).
   */
  error: z.string().optional(),
});
export type Session = z.infer<typeof sessionSchema>;

/** What other replicas hear about a session (Redis pub/sub). */
export const sessionEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('approval-decided'),
    approvalId: z.string(),
    status: approvalStatusSchema,
  }),
  z.object({ type: z.literal('session-canceled') }),
  z.object({ type: z.literal('session-updated') }),
]);
export type SessionEvent = z.infer<typeof sessionEventSchema>;

/** True while a session can still change: `running`, `waiting_approval`, `waiting_input`. */
export function isActiveStatus(status: SessionStatus): boolean {
  return status === 'running' || status === 'waiting_approval' || status === 'waiting_input';
}

/**
 * Keeps an active session's status in step with what it waits for: `waiting_approval` while an
 * approval (node or plan) is pending, else `waiting_input` while a question is, else `running`. A
 * finished session keeps its status.
 */
export function syncWaitingStatus(draft: Session): void {
  if (!isActiveStatus(draft.status)) return;
  const pending = Object.values(draft.approvals).filter(
    (approval) => approval.status === 'pending',
  );
  draft.status = pending.some((approval) => approval.kind !== 'input')
    ? 'waiting_approval'
    : pending.length > 0
      ? 'waiting_input'
      : 'running';
}

/**
 * True when the session ended with an answer for its client: `completed`, or `failed` for reasons
 * of its tasks — its result says, per step, what went wrong (docs/architecture.md §5,
 * "Failures"). False while it runs, when it was canceled, and when the fleet failed it (planning
 * failed, or every step failed for the fleet's reasons): those end as API errors.
 *
 * @example
 * if (isAnswered(session)) replay(session.result);
 */
export function isAnswered(session: Session): boolean {
  if (session.result === undefined) return false;
  if (session.status === 'completed') return true;
  if (session.status !== 'failed') return false;
  const nodes = (session.plan?.nodes ?? []).map(
    (node) => session.nodes[node.id] ?? { state: 'skipped' as const },
  );
  return !isFleetFailure(nodes);
}

/**
 * The session's latest review of its answer (its approval of kind `review` with the highest round;
 * of two with the same round, the newer): the one a person decides now, or decided last.
 */
export function latestReview(session: Session): Approval | undefined {
  return Object.values(session.approvals)
    .filter((approval) => approval.kind === 'review')
    .sort(
      (a, b) =>
        (a.review?.round ?? 0) - (b.review?.round ?? 0) || a.createdAt.localeCompare(b.createdAt),
    )
    .at(-1);
}
