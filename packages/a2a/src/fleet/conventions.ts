import { z } from 'zod';
import { runFileSchema } from './files';
import { MAX_NODE_FILES, planNodeSchema, planSchema } from './plan';
import { resultReviewSchema, reviewDecisionKindSchema, reviewStepSchema } from './review';
import { toolPolicySchema } from './tool-policy';
import { agentSteeringSchema } from './steering';

/**
 * The fleet's conventions inside standard A2A fields (docs/architecture.md §4). Each is the content of
 * a data part (`mediaType: application/json`) of a message or artifact.
 */

/**
 * Whether an agent can do its work now, as its card (the availability extension) or its readiness
 * says: `ready`; `degraded` (it answers, with less than its card promises: `reason` says what is
 * missing); `unconfigured` (it needs settings before it can do anything: `reason` says which).
 * `unavailableSkills` lists skills that cannot work while the rest can (a mail agent with IMAP but
 * no SMTP cannot send).
 */
export const agentAvailabilitySchema = z.object({
  state: z.enum(['ready', 'degraded', 'unconfigured']),
  /** For people: what is missing and what to set, e.g. "No mailbox is configured: set MAIL_IMAP_HOST …". */
  reason: z.string().max(2000).optional(),
  unavailableSkills: z.array(z.string()).max(100).optional(),
});
export type AgentAvailability = z.infer<typeof agentAvailabilitySchema>;

/** A short description of an agent, from its card, as the planner sees it. */
export const agentSummarySchema = z.object({
  name: z.string(),
  description: z.string(),
  /** Absent: the agent did not say, and counts as ready. */
  availability: agentAvailabilitySchema.optional(),
  skills: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string(),
        tags: z.array(z.string()).default([]),
        examples: z.array(z.string()).default([]),
      }),
    )
    .default([]),
});
export type AgentSummary = z.infer<typeof agentSummarySchema>;

/** The planner's view of an Agent Card: its name, description and skills. */
export function agentSummaryOf(
  card: {
    name: string;
    description: string;
    skills: readonly {
      id: string;
      name: string;
      description: string;
      tags: readonly string[];
      examples?: readonly string[] | undefined;
    }[];
  },
  availability?: AgentAvailability,
): AgentSummary {
  return agentSummarySchema.parse({
    name: card.name,
    description: card.description,
    ...(availability === undefined ? {} : { availability }),
    skills: card.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      examples: skill.examples ?? [],
    })),
  });
}

/** One turn of the conversation before the current request. */
export const historyMessageSchema = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: z.string(),
});
export type HistoryMessage = z.infer<typeof historyMessageSchema>;

/** What a finished node hands to the nodes that depend on it. */
export const dependencyOutputSchema = z.object({
  agent: z.string(),
  /** The node's answer text (with its `[n]` citation markers). */
  summary: z.string(),
  /** The node's structured output (the result artifact's data part), if any. */
  data: z.unknown().optional(),
  /** True when the node failed or was denied: `summary` then says why. */
  partial: z.boolean().optional(),
  error: z.string().optional(),
});
export type DependencyOutput = z.infer<typeof dependencyOutputSchema>;

/**
 * Node input: the data part `{ fleet: … }` the orchestrator sends an agent beside the text part
 * with the node's task.
 */
export const nodeInputSchema = z.object({
  fleet: z.object({
    sessionId: z.string(),
    nodeId: z.string(),
    /** The skill (id from the agent's card) the plan chose for this node, if any. */
    skill: z.string().optional(),
    dependencyOutputs: z.record(z.string(), dependencyOutputSchema).default({}),
    entities: z.record(z.string(), z.unknown()).default({}),
    tenant: z.string(),
    memory: z.array(z.string()).default([]),
    /** Which MCP tools the tenant may use (the tools agent refuses the rest). Absent: all. */
    toolPolicy: toolPolicySchema.optional(),
  }),
});
export type NodeInput = z.infer<typeof nodeInputSchema>;

/** A stored document as the RAG agent reports it. */
export const documentInfoSchema = z.object({
  id: z.string(),
  filename: z.string(),
  docType: z.enum(['pdf', 'docx', 'csv', 'xlsx', 'txt', 'md', 'html']),
  chunks: z.number().int().min(0),
  description: z.string().default(''),
  createdAt: z.string(),
  /** True when the same content was already stored (re-ingesting it changed nothing). */
  duplicate: z.boolean().optional(),
  /** True when only part of the document was indexed (a row, page, text or chunk limit). */
  truncated: z.boolean().optional(),
  /** What was left out and why, for people, e.g. "only the first 5000 of 200000 rows were indexed (RAG_MAX_ROWS)". */
  warnings: z.array(z.string()).optional(),
  /**
   * True when the original bytes are kept and the `get` command returns them; false for a document
   * ingested before originals were kept (uploading the same file again keeps them). Absent from
   * agents that keep no originals.
   */
  original: z.boolean().optional(),
});
export type DocumentInfo = z.infer<typeof documentInfoSchema>;

/**
 * Reads back one document's original bytes: by `id`, or by `filename` (exact, case-sensitive) when
 * exactly one of the tenant's documents has that name. Exactly one of the two.
 */
const getDocumentCommandSchema = z
  .object({
    op: z.literal('get'),
    tenant: z.string().min(1),
    id: z.string().min(1).optional(),
    filename: z.string().min(1).optional(),
  })
  .refine((command) => (command.id === undefined) !== (command.filename === undefined), {
    message: 'a get command names the document by exactly one of id or filename',
  });

/**
 * Document management on the RAG agent, outside plans (the gateway's `/v1/documents`, `pnpm fleet
 * ingest`): the data part `{ documents: … }`. `ingest` comes with file parts (`raw` + `filename` +
 * `mediaType`). The result artifact's data part is `{ documents: DocumentInfo[] }` (ingest, list),
 * `{ deleted: boolean }` (delete) or `{ document: DocumentInfo }` (get), the latter beside a file
 * part with the original bytes (`raw` base64, `filename`, `mediaType`). A `get` for an unknown id,
 * another tenant's, or a document without kept bytes fails with `NOT_FOUND`.
 */
export const documentsCommandSchema = z.object({
  documents: z.discriminatedUnion('op', [
    z.object({ op: z.literal('ingest'), tenant: z.string().min(1) }),
    z.object({ op: z.literal('list'), tenant: z.string().min(1) }),
    z.object({ op: z.literal('delete'), tenant: z.string().min(1), id: z.string().min(1) }),
    getDocumentCommandSchema,
  ]),
});
export type DocumentsCommand = z.infer<typeof documentsCommandSchema>['documents'];

/** The name of the artifact that carries an agent's result. */
export const RESULT_ARTIFACT_NAME = 'result';

/** A source an answer cites as `[n]` (n = its position, from 1). */
export const citationSchema = z.object({
  title: z.string(),
  url: z.string().optional(),
  snippet: z.string().optional(),
  /** Which agent (or node) the source came from, once composed. */
  agent: z.string().optional(),
});
export type Citation = z.infer<typeof citationSchema>;

/**
 * Planner input: the data part `{ planRequest: … }` beside a text part with the request.
 * `strategy: 'heuristic'` skips the LLM; `validationError` asks for a repaired plan.
 */
export const planRequestSchema = z.object({
  planRequest: z.object({
    request: z.string(),
    history: z.array(historyMessageSchema).default([]),
    agents: z.array(agentSummarySchema),
    strategy: z.enum(['auto', 'heuristic']).default('auto'),
    validationError: z.string().optional(),
    /** A person's instructions after denying the previous plan (plan approval): re-plan with them. */
    feedback: z.string().optional(),
    /** The plan that was denied, for context. */
    previousPlan: planSchema.optional(),
    /**
     * The files that came with the request (attachments): a step that needs one names it in its
     * `files`, and the orchestrator sends it with the step.
     */
    files: z
      .array(z.object({ name: z.string(), mediaType: z.string(), size: z.number().int().min(0) }))
      .max(MAX_NODE_FILES)
      .optional(),
    /**
     * Agents or skills the request wants preferred or required (`X-Fleet-Agents`); excluded ones
     * are already left out of `agents`. Absent: no steering.
     */
    steering: agentSteeringSchema.pick({ prefer: true, require: true }).optional(),
    /** Why the plan is asked for again: it did not use a required agent or skill. */
    steeringNote: z.string().max(2000).optional(),
  }),
});
export type PlanRequest = z.infer<typeof planRequestSchema>['planRequest'];

/** Planner output: the data part of its `result` artifact. */
export const planResultSchema = z.object({
  plan: planSchema,
  source: z.enum(['llm', 'heuristic']),
  /** LLM attempts made (0 for heuristic-only). */
  attempts: z.number().int().min(0),
  /** Why the LLM plan was not used, when the heuristic planner answered instead. */
  fallbackReason: z.string().optional(),
});
export type PlanResult = z.infer<typeof planResultSchema>;

/**
 * Orchestrator input: the data part `{ fleet: … }` beside a text part with the user's request.
 * An explicit `plan` skips the planner (tests, benchmarks, replays).
 */
export const orchestrateRequestSchema = z.object({
  fleet: z.object({
    tenant: z.string(),
    history: z.array(historyMessageSchema).default([]),
    plan: planSchema.optional(),
    /** Show the plan and wait for a person's approval before any agent runs (`X-Plan-Approval`). */
    planApproval: z.enum(['required', 'none']).default('none'),
    /**
     * What to do with a plan whose confidence is below the orchestrator's threshold
     * (`X-Low-Confidence`): `run` it anyway, `approve` (show it for approval, as with
     * `planApproval: 'required'`) or `ask` the person a question first. Absent: the
     * orchestrator's default (ORCHESTRATOR_LOW_CONFIDENCE).
     */
    lowConfidence: z.enum(['run', 'approve', 'ask']).optional(),
    /**
     * Continue this session instead of starting a run: after a restart, or to stream the rest of a
     * run whose client went away (`X-Session-ID`). The text part is then ignored.
     */
    resumeSessionId: z.string().optional(),
    /**
     * Which MCP tools the tenant may use: the planner never sees the others and no step calls
     * them. Absent: all the tools agents offer.
     */
    toolPolicy: toolPolicySchema.optional(),
    /**
     * Agents or skills to prefer, require or leave out (`X-Fleet-Agents` / `fleet_agents`): the
     * planner never sees excluded ones. Kept in the session for resumes. Absent: no steering
     * (a resume keeps the session's).
     */
    steering: agentSteeringSchema.optional(),
    /**
     * Pause after composing for a person to review the answer (`X-Result-Review`,
     * `fleet_result_review`): approve it, revise steps, re-plan or rewrite it, for any number of
     * rounds (docs/review.md). Absent: `none`.
     */
    resultReview: resultReviewSchema.optional(),
  }),
});
export type OrchestrateRequest = z.infer<typeof orchestrateRequestSchema>['fleet'];

/** The states a plan node goes through. */
export const nodeStateSchema = z.enum([
  'pending',
  'running',
  'waiting_approval',
  'waiting_input',
  'completed',
  'failed',
  'rejected',
  'skipped',
]);
export type NodeState = z.infer<typeof nodeStateSchema>;

/** How risky an action that needs approval is, as the agent judges it. */
export const riskSchema = z.enum(['low', 'medium', 'high']);
export type Risk = z.infer<typeof riskSchema>;

/**
 * An agent's request for a person's consent: the data part of its TASK_STATE_AUTH_REQUIRED status
 * message (docs/architecture.md §4).
 */
export const approvalRequestSchema = z.object({
  approval: z.object({
    /** A short machine-readable name: `send-mail`, `run-code`. */
    action: z.string().min(1),
    /** One sentence a person can decide on. */
    summary: z.string().min(1),
    /** What will happen, in full: the mail, the code. */
    preview: z.string().default(''),
    risk: riskSchema.default('medium'),
    /** ISO time after which the agent will not act on an approval. */
    expiresAt: z.string().optional(),
  }),
});
/**
 * An approval request as the orchestrator keeps it: the convention's fields, plus the agent's own
 * words for the risk when it gave words instead of a level ({@link readApprovalRequest}).
 */
export type ApprovalRequest = z.infer<typeof approvalRequestSchema>['approval'] & {
  /** The agent's description of the risk ("Money leaves the company account"), shown as given. */
  riskDescription?: string | undefined;
};

/** How instructions given with an approval apply: in addition to the task, or instead of it. */
export const instructionModeSchema = z.enum(['enhance', 'override']);
export type InstructionMode = z.infer<typeof instructionModeSchema>;

/**
 * The continuation the orchestrator sends to an agent waiting for approval (same taskId): the data
 * part `{ approvalDecision: … }`. With instructions, `mode` says how they apply and
 * `effectiveTask` is the task to carry out now.
 */
export const approvalDecisionSchema = z.object({
  approvalDecision: z.object({
    decision: z.enum(['approve', 'deny']),
    instructions: z.string().optional(),
    mode: instructionModeSchema.optional(),
    effectiveTask: z.string().optional(),
  }),
});
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>['approvalDecision'];

/**
 * Where an approval (or a question, `answered` once the person replied) stands. `withdrawn`: the
 * agent's task ended (canceled, failed, rejected, or gone from the agent) before anyone decided,
 * so there is nothing left to approve.
 */
export const approvalStatusSchema = z.enum([
  'pending',
  'approved',
  'denied',
  'answered',
  'timed_out',
  'expired',
  'withdrawn',
]);
export type ApprovalStatus = z.infer<typeof approvalStatusSchema>;

/** Longest text of a `node-progress` event, in characters (a longer one is cut, with `…`). */
export const MAX_NODE_PROGRESS_TEXT = 300;

/** Longest stage name of a `node-progress` event (a longer one is not passed on). */
export const MAX_NODE_PROGRESS_STAGE = 64;

/**
 * Progress the orchestrator streams as status-update messages (data part `{ progress: … }`, next
 * to a text part a person can read). Names are noun-verb kebab-case (CONTRIBUTING.md convention 20).
 */
export const progressEventSchema = z.discriminatedUnion('type', [
  z.object({
    /**
     * The orchestrator is running as many runs as it may (ORCHESTRATOR_MAX_ACTIVE_RUNS): this one
     * waits in its tenant's queue, `position` from 1; the tenants' queues are served in turn.
     */
    type: z.literal('queue-start'),
    sessionId: z.string(),
    position: z.number().int().min(1),
    maxActiveRuns: z.number().int().min(1),
  }),
  /** The run waited `waitedMs` and now starts. */
  z.object({ type: z.literal('queue-end'), waitedMs: z.number() }),
  z.object({ type: z.literal('run-start'), sessionId: z.string() }),
  z.object({ type: z.literal('plan-start'), agents: z.array(z.string()) }),
  z.object({
    type: z.literal('plan-end'),
    plan: planSchema,
    source: z.enum(['llm', 'heuristic', 'request']),
  }),
  z.object({
    type: z.literal('node-start'),
    nodeId: z.string(),
    agent: z.string(),
    attempt: z.number().int().min(1),
  }),
  z.object({
    type: z.literal('node-end'),
    nodeId: z.string(),
    agent: z.string(),
    state: z.enum(['completed', 'failed', 'rejected', 'skipped']),
    durationMs: z.number(),
    summary: z.string().optional(),
    error: z.string().optional(),
  }),
  z.object({
    /**
     * What a step's agent says it is doing (a WORKING status message with text, docs/a2a.md §8):
     * live only, never recorded; `text` trimmed and cut short, `stage` when the agent named one
     * (a data part `{ progress: { stage } }`). The orchestrator sends at most a few per second
     * and a bounded number per step (ORCHESTRATOR_PROGRESS_INTERVAL_MS).
     */
    type: z.literal('node-progress'),
    nodeId: z.string(),
    agent: z.string(),
    text: z.string().max(MAX_NODE_PROGRESS_TEXT + 1),
    stage: z.string().max(MAX_NODE_PROGRESS_STAGE).optional(),
  }),
  z.object({
    type: z.literal('approval-required'),
    approvalId: z.string(),
    kind: z.enum(['node', 'plan']),
    nodeId: z.string().optional(),
    agent: z.string().optional(),
    action: z.string(),
    summary: z.string(),
    preview: z.string(),
    risk: riskSchema,
    /** The agent's own words for the risk, when it gave words. */
    riskDescription: z.string().optional(),
    expiresAt: z.string(),
  }),
  z.object({
    type: z.literal('approval-end'),
    approvalId: z.string(),
    status: approvalStatusSchema,
    instructions: z.string().optional(),
    mode: instructionModeSchema.optional(),
  }),
  z.object({
    /** A node's agent asked a question (TASK_STATE_INPUT_REQUIRED); the run waits for the answer. */
    type: z.literal('input-required'),
    inputId: z.string(),
    nodeId: z.string(),
    agent: z.string(),
    question: z.string(),
    expiresAt: z.string(),
  }),
  z.object({
    type: z.literal('input-end'),
    inputId: z.string(),
    status: approvalStatusSchema,
  }),
  z.object({
    /**
     * A file the run keeps: made by a step (`nodeId`, `agent`) or brought by the request
     * (`source: 'attachment'`), readable at `GET /v1/files/{id}/content`.
     */
    type: z.literal('file-ready'),
    file: runFileSchema,
  }),
  z.object({
    /** A file a step made that the run did not keep (refused type, too large, store down). */
    type: z.literal('file-refused'),
    nodeId: z.string().optional(),
    agent: z.string().optional(),
    name: z.string(),
    reason: z.string(),
  }),
  z.object({
    /**
     * The answer is composed and waits for a person's review (`resultReview: 'required'`): the
     * answer and each step's result; decide with `POST /v1/sessions/{id}/review`. Without a
     * decision by `expiresAt`, the time-out decides (`onTimeout`, normally `approve`).
     */
    type: z.literal('review-required'),
    /** The session to decide on (`POST /v1/sessions/{sessionId}/review`). */
    sessionId: z.string().optional(),
    approvalId: z.string(),
    round: z.number().int().min(1),
    answer: z.string(),
    steps: z.array(reviewStepSchema),
    expiresAt: z.string(),
    onTimeout: z.enum(['approve', 'fail']),
  }),
  z.object({
    /** A review was decided (or timed out): what was decided and, for `revise`, what re-runs. */
    type: z.literal('review-end'),
    approvalId: z.string(),
    round: z.number().int().min(1),
    decision: reviewDecisionKindSchema,
    feedback: z.string().optional(),
    targets: z.array(z.string()).optional(),
    rerun: z.array(z.string()).optional(),
    kept: z.array(z.string()).optional(),
    timedOut: z.boolean().optional(),
  }),
  z.object({
    /**
     * A step was added to the running plan: a step's result handed work off (`origin.kind`
     * `handoff`), or a failed step was re-planned (`replan`). `node.origin.from` is the step it
     * came from.
     */
    type: z.literal('node-added'),
    node: planNodeSchema,
    reason: z.string().optional(),
  }),
  z.object({
    /** A hand-off a step asked for that the run did not take, and why. */
    type: z.literal('handoff-refused'),
    nodeId: z.string(),
    agent: z.string(),
    /** The agent or skill the hand-off named. */
    target: z.string(),
    reason: z.string(),
  }),
  z.object({ type: z.literal('compose-start') }),
  z.object({ type: z.literal('run-end'), state: z.enum(['completed', 'failed', 'canceled']) }),
]);
export type ProgressEvent = z.infer<typeof progressEventSchema>;

/**
 * Why a step ended without its work done (docs/architecture.md §5, "Failures"): `task`, for a
 * reason of the task itself that its agent reported (a program that erred or hit a limit, nothing
 * found, an agent not configured or refusing, a person's denial); `fleet`, because the fleet could
 * not do it (the agent unreachable or silent after retries, its circuit open, its own upstream
 * failing, a replica lost mid-step).
 */
export const stepFailureSchema = z.enum(['task', 'fleet']);
export type StepFailure = z.infer<typeof stepFailureSchema>;

/**
 * How much of a run's work was done: `completed` (every step), `partial` (some step was not
 * done: failed, declined or not run, while another was done, or a person declined every step),
 * `failed` (no step was done and at least one failed).
 */
export const runStateSchema = z.enum(['completed', 'partial', 'failed']);
export type RunState = z.infer<typeof runStateSchema>;

/** A node as the run's result reports it. */
export const nodeReportSchema = z.object({
  id: z.string(),
  agent: z.string(),
  state: nodeStateSchema,
  durationMs: z.number().optional(),
  attempts: z.number().int().min(0),
  error: z.string().optional(),
  /** Set on a step that failed: whether for a reason of its task or of the fleet. */
  failure: stepFailureSchema.optional(),
  /** The ids of the files the step made that the run keeps (`RunResult.files`). */
  files: z.array(z.string()).optional(),
});
export type NodeReport = z.infer<typeof nodeReportSchema>;

/**
 * Tokens that model calls used, as the upstream reported them. Calls whose usage is unknown (made
 * offline, or the upstream or agent reported none) are counted in `unknownCalls` and are not in
 * the token counts: unknown is never reported as zero.
 */
export const tokenUsageSchema = z.object({
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
  totalTokens: z.number().int().min(0),
  /** Model calls whose usage is in the counts above. */
  calls: z.number().int().min(0),
  /** Model calls whose usage is unknown: not in the counts above. */
  unknownCalls: z.number().int().min(0),
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

/** The usage of one step of a run: `planner`, a node's id, `composer` or `classifier`. */
export const stepUsageSchema = tokenUsageSchema.extend({
  step: z.string(),
  /** The node's agent, for node steps. */
  agent: z.string().optional(),
  /**
   * False when the step's agent said nothing about its usage (a foreign agent, say): whether it
   * called a model is unknown, and the run's usage is then incomplete.
   */
  reported: z.boolean(),
});
export type StepUsage = z.infer<typeof stepUsageSchema>;

/** A run's usage: the sum of its steps, and the steps. */
export const runUsageSchema = tokenUsageSchema.extend({
  /** True when every step reported its usage and no call's usage is unknown. */
  complete: z.boolean(),
  steps: z.array(stepUsageSchema),
});
export type RunUsage = z.infer<typeof runUsageSchema>;

/** The orchestrator's `result` artifact data part: everything the gateway's `fleet` object shows. */
export const runResultSchema = z.object({
  sessionId: z.string(),
  plan: planSchema,
  nodes: z.array(nodeReportSchema),
  citations: z.array(citationSchema),
  failedNodes: z.array(z.string()),
  composer: z.enum(['llm', 'offline']),
  /** The run's model usage (absent from orchestrators that predate it). */
  usage: runUsageSchema.optional(),
  /** How much of the work was done (absent from orchestrators that predate it). */
  state: runStateSchema.optional(),
  /** The files the run keeps: the steps' and the request's (absent: none, or an older orchestrator). */
  files: z.array(runFileSchema).optional(),
});
export type RunResult = z.infer<typeof runResultSchema>;
