import type { RunFileStore } from '@fleet/a2a';
import type { SessionStore } from '@fleet/sessions';
import type { ComposerLlm } from '../composing';
import type { AvailableAgent } from '../discovery';
import type {
  AgentBreakers,
  AgentTaskState,
  CancelAgentTask,
  InvokeAgent,
  RetryOptions,
  Scheduling,
  RunFileLimits,
  StepFiles,
} from '../execution';
import type { MemoryServices } from '../memory';
import type { AskPlanner } from '../planning';
import type { RunAdmission, RunScheduler } from '../scheduling';
import type { PlanConfidenceSettings } from './plan-confidence';
import type { ResultReviewSettings } from './result-review';
import type { RunLogger } from './run-context';

/** Everything the orchestrator agent is built from. */
export interface OrchestratorAgentOptions {
  sessions: SessionStore;
  /** The healthy agents (discovery). */
  availableAgents: () => Promise<AvailableAgent[]>;
  /**
   * The agents a run could use before its steering's `exclude` took some away (set per run):
   * to name the excluded agent a request needed when the plan came back empty. Undefined: the
   * run has no exclusions.
   */
  agentsBeforeSteering?: (() => Promise<AvailableAgent[]>) | undefined;
  askPlanner: AskPlanner;
  invokeAgent: InvokeAgent;
  /** Cancels a node's agent task (a run canceled while the node waits for approval). */
  cancelAgentTask?: CancelAgentTask | undefined;
  /**
   * Reads a node's agent task while a person is to decide on it, so an approval whose task ended
   * at the agent is `withdrawn` at once instead of pending until it expires.
   */
  agentTaskState?: AgentTaskState | undefined;
  /** How often a waiting node's agent task is read. @default 5000 */
  agentTaskCheckMs?: number | undefined;
  /** Shared by every run of this process. */
  breakers: AgentBreakers;
  /**
   * Undefined in offline mode: answers are composed from the agents' own results and approvers'
   * instructions always `enhance` the task.
   */
  llm?: ComposerLlm | undefined;
  logger: RunLogger;
  /** @default 'dependency' */
  scheduling?: Scheduling | undefined;
  /** Per attempt of a node. @default 120000 */
  nodeTimeoutMs?: number | undefined;
  /**
   * What the steps' agents say they are doing (`node-progress`): at most one line per step in this
   * many milliseconds, and `DEFAULT_MAX_PROGRESS_PER_STEP` per step (ORCHESTRATOR_PROGRESS_INTERVAL_MS).
   * 0: none is sent. @default 500
   */
  progressIntervalMs?: number | undefined;
  /** The most `node-progress` lines one step sends. @default DEFAULT_MAX_PROGRESS_PER_STEP (50) */
  progressMaxPerStep?: number | undefined;
  /**
   * Most steps the hand-offs of a run's steps may add to its plan (ORCHESTRATOR_MAX_HANDOFFS).
   * @default DEFAULT_MAX_HANDOFFS (3)
   */
  maxHandoffs?: number | undefined;
  /**
   * Plan once more after a step failed for a reason another agent could work around, and run the
   * new steps (ORCHESTRATOR_REPLAN_AFTER_FAILURE); once per run. @default true
   */
  replanAfterFailure?: boolean | undefined;
  retry?: RetryOptions | undefined;
  /**
   * Fetches the documents a plan node names (`files`) for the run's tenant before the node is
   * sent (`createStepFilesFetcher`: from the RAG agent). @default files are not sent
   */
  stepFiles?: StepFiles | undefined;
  /**
   * Where the runs keep their files (the steps' file parts and the request's attachments), and
   * within which limits (ORCHESTRATOR_MAX_FILE_BYTES, …). Undefined: no store, every file is
   * refused with that reason. @default limits DEFAULT_RUN_FILE_LIMITS
   */
  runFiles?: { store: RunFileStore; limits?: RunFileLimits | undefined } | undefined;
  /**
   * What an uncertain plan (confidence below `threshold`) gets when the request does not say
   * (ORCHESTRATOR_PLAN_CONFIDENCE_THRESHOLD, ORCHESTRATOR_LOW_CONFIDENCE). @default { threshold: 0.5, mode: 'run' }
   */
  planConfidence?: PlanConfidenceSettings | undefined;
  /** The most rows of a step's table the answer shows (ORCHESTRATOR_ANSWER_TABLE_ROWS). @default 20 */
  answerTableRows?: number | undefined;
  /** How long a person has to decide an approval (HITL_TIMEOUT_SECONDS). @default 120 */
  hitlTimeoutSeconds?: number | undefined;
  /**
   * Result review (`resultReview: 'required'`): how long a person has to review an answer
   * (ORCHESTRATOR_REVIEW_TIMEOUT_SECONDS, @default `hitlTimeoutSeconds`), what the time-out decides
   * (ORCHESTRATOR_REVIEW_ON_TIMEOUT, @default approve) and how many rounds a run gets
   * (ORCHESTRATOR_MAX_REVIEW_ROUNDS, @default DEFAULT_MAX_REVIEW_ROUNDS).
   */
  review?: Partial<ResultReviewSettings> | undefined;
  /** This process, in the owner of its runner leases. @default a random UUID */
  instanceId?: string | undefined;
  /** The runner lease's TTL; the lease is renewed every third of it. @default 15000 */
  runnerLeaseMs?: number | undefined;
  /**
   * Long-term memory: read for every run's user (`fleet.user`), extracted from the request beside
   * planning, given to every node and to the composer. Undefined: no memory.
   */
  memory?: MemoryServices | undefined;
  /**
   * Fair admission (docs/architecture.md §5, "Scheduling"): a run waits for one of its slots
   * in its tenant's queue before it plans. Undefined: every run starts at once.
   */
  scheduler?: RunScheduler | undefined;
  /** The places reserved for new runs at the A2A edge (`createRunAdmission(scheduler)`). */
  admission?: RunAdmission | undefined;
  /**
   * Ends the orchestrator task that ran a session before, when a resume carries the session on
   * under another task and that one's turn was lost (its orchestrator died): it must not stay
   * WORKING for ever. Undefined: such tasks are left as they are.
   */
  supersedeTask?: ((superseded: SupersededTask) => Promise<void>) | undefined;
}

/** A task whose session goes on under another task (see `supersedeTask`). */
export interface SupersededTask {
  /** The task that ran the session before. */
  taskId: string;
  sessionId: string;
  /** The task the session goes on under. */
  runnerTaskId: string;
}
