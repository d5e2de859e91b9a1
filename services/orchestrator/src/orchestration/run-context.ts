import type { ProgressEvent } from '@fleet/a2a';
import type { SessionStore } from '@fleet/sessions';
import type { ClassifierLlm } from '../approvals';
import type { AgentTaskState, CancelAgentTask } from '../execution';
import type { RunUsageLedger } from '../usage';
import type { SessionWatch } from './session-watch';
import type { SessionWriter } from './session-writer';

/** The logging a run needs. */
export interface RunLogger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
  debug(object: object, message?: string): void;
}

/** The run's slot with the scheduler (docs/architecture.md §5, "Scheduling"). */
export interface RunSlot {
  /**
   * Gives the slot up while the whole run waits for a person (plan approval), and waits for one
   * again — at the front of its tenant's queue — before it goes on.
   */
  whileWaiting<T>(wait: () => Promise<T>): Promise<T>;
  /**
   * A step waits for a person (its approval or question): the run stops counting against the
   * caps meanwhile, and counts again at once when the wait ends (no queueing: its other branches
   * may still be running).
   */
  parkWhile<T>(wait: () => Promise<T>): Promise<T>;
}

/** What one run of one session works with (the orchestrator agent builds it per run). */
export interface RunContext {
  sessions: SessionStore;
  sessionId: string;
  /** The run's own signal: CancelTask, `session-canceled`, or a hand-over (`RunHandover`). */
  signal: AbortSignal;
  writer: SessionWriter;
  watch: SessionWatch;
  /** Streams a progress event (a readable line plus `{ progress }`). */
  progress: (event: ProgressEvent) => void;
  /** Its slot with the scheduler; undefined when runs are not scheduled. */
  slot?: RunSlot | undefined;
  /** How long a person has to decide, in milliseconds (HITL_TIMEOUT_SECONDS). */
  hitlTimeoutMs: number;
  /** Classifies approvers' instructions; undefined offline. */
  llm: ClassifierLlm | undefined;
  /** Cancels a waiting node's agent task when the run is canceled. */
  cancelAgentTask: CancelAgentTask | undefined;
  /**
   * Reads a waiting node's agent task, to notice one that ended at the agent while a person was
   * still to decide (its approval is then `withdrawn`); undefined: not watched.
   */
  agentTaskState?: AgentTaskState | undefined;
  /** How often a waiting node's agent task is read. @default 5000 */
  agentTaskCheckMs?: number | undefined;
  logger: RunLogger;
  /** The run's model usage, step by step (recorded in the session as it grows). */
  usage: RunUsageLedger;
  /** Added to every log line. */
  log: Record<string, unknown>;
}

/** The earlier of an agent's own expiry (if it gave a valid one) and now + the HITL time-out. */
export function approvalExpiry(hitlTimeoutMs: number, agentExpiresAt?: string): string {
  const limit = Date.now() + hitlTimeoutMs;
  const asked = agentExpiresAt === undefined ? Number.NaN : Date.parse(agentExpiresAt);
  return new Date(Number.isNaN(asked) ? limit : Math.min(asked, limit)).toISOString();
}
