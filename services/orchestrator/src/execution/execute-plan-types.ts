// The types of a plan's execution: its options, the events it reports, how it asks for an
// approval, and how the run's nodes ended. The executor itself is in execute-plan.ts.
import type { ApprovalRequest, Plan, PlanNode, TokenUsage, ToolPolicy } from '@fleet/a2a';
import type { AgentBreakers } from './agent-breakers';
import type {
  Continuation,
  InvokeAgent,
  KeepStepFiles,
  NodeRun,
  StatusFingerprint,
  StepFiles,
} from './node-outcome';
import type { ResolveHandoff } from './plan-growth';

/**
 * `dependency`: each node starts the moment all its dependencies have finished (the fleet's
 * default; a run takes about its critical path). `stages`: topological levels, each waiting for the
 * whole previous level — only for the benchmark's comparison.
 */
export type Scheduling = 'dependency' | 'stages';

/** Retries of one node on transient failures. */
export interface RetryOptions {
  /** Attempts per node, the first included. @default 3 */
  maxAttempts?: number;
  /** Delay before the second attempt; doubles each time. @default 500 */
  baseDelayMs?: number;
  /** Longest delay between attempts. @default 8000 */
  maxDelayMs?: number;
}

/** What the executor reports while it runs, in the order things happen. */
export type ExecutionEvent =
  | { type: 'node-start'; nodeId: string; agent: string; attempt: number }
  | {
      /** The agent created the attempt's task: its id is known before the node ends. */
      type: 'node-task';
      nodeId: string;
      agent: string;
      attempt: number;
      taskId: string;
    }
  | {
      type: 'node-retry';
      nodeId: string;
      agent: string;
      /** The attempt that failed. */
      attempt: number;
      error: string;
      delayMs: number;
    }
  | {
      type: 'node-end';
      nodeId: string;
      agent: string;
      /** A snapshot of the node once it ended: `completed`, `failed`, `rejected` or `skipped`. */
      run: NodeRun;
      durationMs: number;
    }
  | {
      /**
       * A node was added to the running plan: a completed node handed work off (`origin.kind`
       * `handoff`). Reported after the `node-end` of the node it came from, before it starts.
       */
      type: 'node-added';
      node: PlanNode;
      reason?: string | undefined;
    }
  | {
      /** A hand-off a completed node asked for was not taken, and why. */
      type: 'handoff-refused';
      nodeId: string;
      agent: string;
      /**
       * The agent or skill the hand-off named; `unreadable` for one found in the result but not
       * read (malformed, or one too many for a step: `reason` says which).
       */
      target: string;
      reason: string;
    };

/**
 * A node's agent asks a person something: consent (TASK_STATE_AUTH_REQUIRED, `kind: 'approval'`)
 * or a question (TASK_STATE_INPUT_REQUIRED, `kind: 'input'`); what the run needs to decide.
 */
export interface NodeApprovalRequest {
  node: PlanNode;
  kind: 'approval' | 'input';
  /** The agent task that waits. */
  taskId: string;
  /** The task as it stands: the node's task, or the task an earlier approval's instructions made. */
  task: string;
  /**
   * The agent's request, read liberally ({@link readApprovalRequest}); undefined for a question,
   * and when a resumed run waits again for the approval it recorded before.
   */
  approval: ApprovalRequest | undefined;
  /** The agent's question (kind `input`); undefined when a resumed run waits again. */
  question: string | undefined;
  /** The status that asked (undefined when a resumed run waits again). */
  asked: StatusFingerprint | undefined;
  /** Aborted when the run is canceled or handed over. */
  signal: AbortSignal;
}

/** What a person decided about a node's request, and what the executor sends the agent. */
export interface ApprovalVerdict {
  approvalId: string;
  /**
   * `approve` / `deny` for an approval (a time-out is a `deny`), `answer` for an answered question,
   * `unanswered` for a question nobody answered in time (its task was canceled; nothing is sent),
   * `withdrawn` when the agent's task ended before anyone decided (nothing is sent).
   */
  result: 'approve' | 'deny' | 'answer' | 'unanswered' | 'withdrawn';
  /** The continuation to send (or sent already, when `deliver` is false). */
  continuation: Continuation | undefined;
  /** The status the continuation answers: a snapshot of it is not a new request. */
  answered: StatusFingerprint | undefined;
  /**
   * True: send the continuation. False: it was delivered before (at most once), so only follow
   * the task to its end.
   */
  deliver: boolean;
  /** Denied, timed out or unanswered: why the step was not done (the node's error). */
  reason?: string | undefined;
  /** Approved with instructions: the task as it will be carried out. */
  effectiveTask?: string | undefined;
}

/**
 * Waits for a person's decision on a node's approval request or answer to its question (recording
 * it on the way) and says what to send the agent. Rejects when the run is aborted.
 */
export type AwaitApproval = (request: NodeApprovalRequest) => Promise<ApprovalVerdict>;

/**
 * A node as a resumed run finds it recorded. Finished states (`completed`, `failed`, `rejected`,
 * `skipped`) are not run again and feed their dependents; `running` follows the recorded agent
 * task (never re-sent: side effects happen at most once); `waiting_approval` waits again for the
 * recorded approval (through {@link AwaitApproval} with no `approval`); `pending` runs normally.
 */
export type ResumedNode = Omit<NodeRun, 'id'>;

/** Options for {@link executePlan}. */
export interface ExecutePlanOptions {
  /** A validated plan (known agents, no cycles, no dangling edges). */
  plan: Plan;
  /** Runs one attempt of one node. */
  invokeAgent: InvokeAgent;
  /** Put in every node's input. */
  sessionId: string;
  tenant: string;
  /**
   * Which MCP tools the tenant may use, put in every node's input (`fleet.toolPolicy`) so a tools
   * agent refuses the rest too. @default every tool (none is put in)
   */
  toolPolicy?: ToolPolicy | undefined;
  /** Cancels the run: no new node starts, running ones are aborted, pending ones are skipped. */
  signal?: AbortSignal | undefined;
  /** Called synchronously as things happen. Must not throw. */
  onEvent?: ((event: ExecutionEvent) => void) | undefined;
  /**
   * The nodes' answers as they grow (see `InvokeAgentRequest.onText`): each new piece of a node's
   * result text, in order, for a run that shows a step's answer while it is written.
   */
  onNodeText?: ((event: { nodeId: string; agent: string; text: string }) => void) | undefined;
  /**
   * What the nodes' agents say they are doing (see `InvokeAgentRequest.onProgress`), unthrottled,
   * as it arrives. Must not throw.
   */
  onNodeProgress?:
    | ((event: { nodeId: string; agent: string; text: string; stage?: string | undefined }) => void)
    | undefined;
  /**
   * Told, after every call that reached a node's agent, what the agent reported about its model
   * usage for it (undefined: nothing — an agent outside the fleet, or a call that broke once the
   * agent had the task). Must not throw.
   */
  onNodeUsage?:
    ((event: { nodeId: string; agent: string; usage: TokenUsage | undefined }) => void) | undefined;
  /** @default 'dependency' */
  scheduling?: Scheduling | undefined;
  /** How long one attempt may run before it is aborted. @default 120000 */
  timeoutMs?: number | undefined;
  retry?: RetryOptions | undefined;
  /** Per-agent circuit breakers, shared across runs. @default a fresh set for this run */
  breakers?: AgentBreakers | undefined;
  /** Jitter source, in [0, 1). @default Math.random */
  random?: (() => number) | undefined;
  /**
   * Handles agents that ask a person (TASK_STATE_AUTH_REQUIRED: approval, in any shape;
   * TASK_STATE_INPUT_REQUIRED: a question): only that node waits, the rest of the plan goes on.
   * Without it such a node fails.
   */
  awaitApproval?: AwaitApproval | undefined;
  /** The recorded state of a resumed run's nodes, by id (see {@link ResumedNode}). */
  resumeFrom?: Readonly<Record<string, ResumedNode>> | undefined;
  /**
   * What is known about the user (long-term memory, as sentences), read when each node starts:
   * the node input's `memory`. @default none
   */
  memory?: (() => readonly string[]) | undefined;
  /**
   * Fetches the documents a node names (`node.files`) before its message is sent; a node whose
   * files cannot be had fails unsent with the reason. @default files are not sent
   */
  stepFiles?: StepFiles | undefined;
  /**
   * Keeps the files a completed node's agent answered with (`createRunFileKeeper`), before the
   * node ends: they are on its `files`. @default they are dropped
   */
  keepFiles?: KeepStepFiles | undefined;
  /**
   * Finds the agent a completed node's hand-off names among those the run may use. Without it,
   * every hand-off is refused.
   */
  resolveHandoff?: ResolveHandoff | undefined;
  /**
   * Most nodes hand-offs may add to the plan (the plan's nodes with origin `handoff`, counting
   * those a resumed plan has). @default DEFAULT_MAX_HANDOFFS
   */
  maxHandoffs?: number | undefined;
}

/** How a run's nodes ended. */
export interface ExecutionResult {
  /** The plan as it ended: the plan given, and the nodes added while it ran, in order. */
  plan: Plan;
  /** One entry per plan node, in plan order. */
  nodes: NodeRun[];
  /** True when the run's signal was aborted before every node finished. */
  canceled: boolean;
}
