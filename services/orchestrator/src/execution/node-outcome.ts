import type { StepTable } from '../composing/answer-tables';
import type { AgentProgress } from './read-agent-progress';
import type {
  DependencyOutput,
  HandoffRequest,
  NodeInput,
  Part,
  PlanNode,
  RunFile,
  StepFailure,
  TaskState,
  TokenUsage,
} from '@fleet/a2a';

/**
 * How a task status is recognised again (after a restart, or in a snapshot the agent re-sends):
 * its state, and its time and status message id where the agent gave them.
 */
export interface StatusFingerprint {
  state: string;
  timestamp?: string | undefined;
  messageId?: string | undefined;
}

/** A message that continues an interrupted task: an approval decision or an answer. */
export interface Continuation {
  /** The same on every send of this continuation, so an agent can recognise a re-send. */
  messageId: string;
  parts: Part[];
}

/** Going on with a node's existing agent task instead of sending the node's message. */
export interface ExistingTask {
  taskId: string;
  /** Send this as the task's continuation; without it the task is only followed. */
  continuation?: Continuation | undefined;
  /**
   * The interrupted status the continuation answers: events still showing it do not count until
   * the agent has taken the continuation (it is not a new request).
   */
  answered?: StatusFingerprint | undefined;
  /**
   * A re-send after a restart: send the continuation only if the task still shows `answered`
   * (the agent never got it); otherwise only follow the task.
   */
  onlyIfStill?: boolean | undefined;
}

/**
 * A file part a step's agent answered with, as read from its task's artifacts: inline bytes
 * (`raw`, base64) to keep, or a `url` the fleet does not fetch (refused when kept).
 */
export interface StepFilePart {
  /** The name the agent gave it (cleaned before it is kept). */
  filename?: string | undefined;
  mediaType?: string | undefined;
  /** Base64 bytes. */
  raw?: string | undefined;
  url?: string | undefined;
}

/**
 * How one attempt of one plan node ended, as the agent reported it. Transport failures
 * (connection refused, 5xx, time-outs) are thrown by {@link InvokeAgent} instead and classified by
 * the executor; an outcome is the agent's own answer, with the usage of the model calls the agent
 * reported for the turns this call followed (`usage`; absent: it reported none).
 */
export type NodeOutcome = (
  | {
      status: 'completed';
      /** The `result` artifact's text part (the answer, with `[n]` citation markers). */
      summary: string;
      /** The `result` artifact's data part (`sources`, `chunks`, …), if any. */
      data?: unknown;
      /** The tables in the `result` artifact's CSV/TSV file parts (first rows kept). */
      tables?: StepTable[] | undefined;
      /**
       * The file parts of every artifact of the task (an agent outside the fleet may name its
       * artifacts otherwise, or send several), in the order they came; kept by the executor.
       */
      files?: StepFilePart[] | undefined;
      /**
       * The hand-offs the result asks for (`readHandoffs` over every artifact and the final status
       * message): more work for other agents, added to the plan if the run takes them.
       */
      handoffs?: HandoffRequest[] | undefined;
      /** The hand-offs found that could not be taken as they were (malformed, too many), and why. */
      handoffsRefused?: string[] | undefined;
      /** The agent's task id. */
      taskId?: string | undefined;
    }
  | {
      status: 'failed';
      /** Why, in words a person can read (the task's status message). */
      error: string;
      /**
       * True only when the failure is clearly transient and the agent cannot have started side
       * effects; the executor then retries the node. @default false
       */
      retryable?: boolean | undefined;
      /** True when the call never reached the agent (no replica was up): safe to send again. */
      notSent?: boolean | undefined;
      /** True when the agent refused the task (TASK_STATE_REJECTED): the node ends `rejected`. */
      rejected?: boolean | undefined;
      /**
       * Whose failure it is: `task` (the agent's own answer about the work, the default) or
       * `fleet` (the agent could not do it for want of a working dependency; see
       * `reportedFailure`). @default 'task'
       */
      failure?: StepFailure | undefined;
      taskId?: string | undefined;
    }
  | {
      /** The task stopped to ask a person (TASK_STATE_AUTH_REQUIRED / TASK_STATE_INPUT_REQUIRED). */
      status: 'interrupted';
      reason: 'auth-required' | 'input-required';
      /** The agent's status message text. */
      message: string;
      /** The status message's parts (read liberally: `readApprovalRequest`, `readQuestion`). */
      parts: Part[];
      /** The status that asked, to recognise it again. */
      asked: StatusFingerprint;
      /** The status message's first data part (e.g. `{ approval: … }`). */
      data?: unknown;
      taskId?: string | undefined;
    }
) & {
  /** The model usage the agent reported for this call's turns (docs/a2a.md §8, "Usage"). */
  usage?: TokenUsage | undefined;
};

/** What {@link InvokeAgent} is called with for one attempt of one node. */
export interface InvokeAgentRequest {
  node: PlanNode;
  /** The data part `{ fleet: … }` for the agent (docs/architecture.md §4). */
  input: NodeInput;
  /** 1 for the first attempt. */
  attempt: number;
  /**
   * File parts sent with the node's message, after its text and data parts: the documents the
   * node names (`node.files`), fetched for the run's tenant ({@link StepFiles}). Absent: none.
   */
  files?: readonly Part[] | undefined;
  /** Aborted on the node's time-out and when the run is canceled: stop and cancel the remote task. */
  signal: AbortSignal;
  /** Called once the agent has created the node's task (before it ends), with its id. */
  onTask?: ((taskId: string) => void) | undefined;
  /**
   * Called as the agent's answer grows, with each new piece of its `result` artifact's text, when
   * the agent streams it (artifact chunks: `append: true`, or `lastChunk: false`); an answer sent
   * whole is not reported. Every piece extends what came before; a replacement that does not is
   * not reported (the node's summary stays the authority).
   */
  onText?: ((text: string) => void) | undefined;
  /**
   * Called with what the agent says it is doing: each WORKING status whose message has text (read
   * liberally, `readAgentProgress`), as it arrives. Unthrottled: the caller limits the rate.
   */
  onProgress?: ((progress: AgentProgress) => void) | undefined;
  /**
   * Go on with the node's existing agent task instead of sending the node's message: with a
   * `continuation`, send it (same taskId) and follow the task to its end; without, only follow the
   * task (`GetTask`, then `SubscribeToTask` while it runs) — how a resumed run recovers a node
   * without sending it twice.
   */
  existingTask?: ExistingTask | undefined;
}

/** The documents a node names, ready to send: its file parts, or why the node cannot have them. */
export type StepFilesResult =
  | { status: 'ready'; parts: Part[] }
  | {
      status: 'failed';
      /** Which file and why, in words a person can read (the node's error). */
      error: string;
      /** `task`: a file is missing or too large; `fleet`: they could not be fetched. */
      failure: StepFailure;
    };

/**
 * Fetches the documents a node names (`node.files`) for the run's tenant, before its message is
 * sent. The executor's seam: production reads them from the RAG agent
 * (`createStepFilesFetcher`), tests pass in-process functions. Never rejects on a missing file.
 */
export type StepFiles = (request: {
  node: PlanNode;
  tenant: string;
  signal: AbortSignal | undefined;
}) => Promise<StepFilesResult>;

/**
 * Keeps the files a completed step made (`createRunFileKeeper`): names cleaned, types checked,
 * the run's limits applied, each stored and announced (`file-ready` / `file-refused`). The
 * executor's seam; resolves with the files kept and never rejects (a store that is down refuses
 * the files, it does not fail the step).
 */
export type KeepStepFiles = (request: {
  node: PlanNode;
  files: readonly StepFilePart[];
  signal: AbortSignal | undefined;
}) => Promise<RunFile[]>;

/** Cancels a node's agent task, best-effort (a run canceled while the node waits for approval). */
export type CancelAgentTask = (request: { agent: string; taskId: string }) => Promise<void>;

/**
 * Where a node's agent task stands now (`GetTask`): its state, `gone` when the agent no longer
 * has it, undefined when the agent could not be asked (unreachable, a failed call).
 */
export type AgentTaskState = (request: {
  agent: string;
  taskId: string;
  signal?: AbortSignal | undefined;
}) => Promise<TaskState | 'gone' | undefined>;

/**
 * Runs one attempt of one node on its agent. The executor's seam: production passes the A2A
 * invoker, tests pass in-process async functions. Rejects on transport failures.
 */
export type InvokeAgent = (request: InvokeAgentRequest) => Promise<NodeOutcome>;

/** A node's state as the executor tracks it. */
export interface NodeRun {
  id: string;
  agent: string;
  state:
    | 'pending'
    | 'running'
    | 'waiting_approval'
    | 'waiting_input'
    | 'completed'
    | 'failed'
    | 'rejected'
    | 'skipped';
  /** Attempts started so far. */
  attempts: number;
  /** Epoch milliseconds. */
  startedAt?: number;
  endedAt?: number;
  summary?: string;
  data?: unknown;
  /** The tables of the agent's CSV/TSV file parts (first rows kept), shown in the answer. */
  tables?: StepTable[];
  /** The files the step made that the run keeps (in the file store), in the order they came. */
  files?: RunFile[];
  error?: string;
  /** Set on a failed node: whether it failed for a reason of its task or of the fleet. */
  failure?: StepFailure;
  taskId?: string;
  /** Set when the node failed because its agent asked a person something the fleet cannot relay. */
  interrupted?: 'auth-required' | 'input-required';
  /** The approval (or question) the node waits for, or last waited for. */
  approvalId?: string;
  /**
   * Set on a resumed node whose decision or answer was delivered before the restart: sent again
   * (same message id) if the task still shows the status it answered, else the task is followed.
   */
  redeliver?: { continuation: Continuation; answered: StatusFingerprint };
  /** The task as carried out, when an approver's instructions changed it. */
  effectiveTask?: string;
  /** A completed node's hand-offs, as its agent asked for them (see `NodeOutcome`). */
  handoffs?: HandoffRequest[];
  /** The hand-offs of a completed node that did not read, and why. */
  handoffsRefused?: string[];
}

/** What a node hands to its dependents, keyed by its id. */
export type DependencyOutputs = Record<string, DependencyOutput>;
