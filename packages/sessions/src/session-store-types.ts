import type { AgentSteering, HistoryMessage, ReviewDecision, ToolPolicy } from '@fleet/a2a';
import type { Cluster, Redis } from 'ioredis';
import type { Lease } from './lease';
import type { Approval, Session, SessionEvent } from './session-schema';

/** Options for {@link createSessionStore}. */
export interface SessionStoreOptions {
  /**
   * The connection for commands: a single Redis or a Redis Cluster. The store duplicates it once
   * for its subscriptions; a Cluster created with `shardedSubscribers: true` carries the events
   * over sharded pub/sub (every service of a deployment must agree on that setting).
   */
  redis: Redis | Cluster;
  /** A session expires this long after its last change. @default 604800 (7 days) */
  ttlSeconds?: number;
  /**
   * The namespace of every key and channel, laid out for Redis Cluster with the hash tag around
   * the session id (or the tenant): per session `${keyPrefix}:{id}:session` (the JSON),
   * `…:{id}:lock`, `…:{id}:lease:runner`, `…:{id}:lease:attach` and the channel `…:{id}:events`
   * (the store listens to `${keyPrefix}:{*}:events`, or, sharded, to each channel); per tenant
   * `${keyPrefix}:{tenant:<tenant>}:sessions` and `…:{tenant:<tenant>}:pending-approvals`;
   * fleet-wide `${keyPrefix}:{sessions}:pending-approvals` and `${keyPrefix}:{sessions}:active`.
   * Must not contain `{` or `}`.
   * @default 'fleet'
   */
  keyPrefix?: string;
  /** How long a lock holds if its holder dies mid-change. @default 5000 */
  lockTtlMs?: number;
  /**
   * Extra tries to take a busy lock before giving up with a ConflictError. Kept short so a
   * contended session answers 409 quickly rather than queueing. @default 20
   */
  lockRetryCount?: number;
  /** Delay between tries, plus or minus as much jitter. @default 25 */
  lockRetryDelayMs?: number;
}

/** What a new session starts with. */
export interface NewSession {
  /** @default a random UUID */
  id?: string | undefined;
  tenant: string;
  request: string;
  /** @default [] */
  history?: HistoryMessage[] | undefined;
  /** @default false */
  planApproval?: boolean | undefined;
  /** Whether a person reviews the composed answer before it is sent. @default false */
  resultReview?: boolean | undefined;
  /** Which MCP tools the run may use (`fleet.toolPolicy`). @default every tool */
  toolPolicy?: ToolPolicy | undefined;
  /** Agents or skills the run prefers, requires or leaves out (`fleet.steering`). @default none */
  steering?: AgentSteering | undefined;
  /** The A2A task that runs the session, when it is known from the start. */
  taskId?: string | undefined;
}

/** The runner lease {@link SessionStore.createWithRunner} takes with the new session. */
export interface NewRunner {
  /** Who runs the session (one orchestrator's run). */
  owner: string;
  /** @default 15000 */
  ttlMs?: number | undefined;
}

/** A new pending approval; `status` is set to `pending` and `createdAt` defaults to now. */
export type NewApproval = Omit<Approval, 'status' | 'createdAt'> & {
  createdAt?: string | undefined;
};

/** A person's decision on one approval. */
export interface DecideApprovalInput {
  sessionId: string;
  approvalId: string;
  /** The caller's tenant: another tenant's session is unknown to them. */
  tenant: string;
  decision: 'approve' | 'deny';
  instructions?: string | undefined;
}

/** A person's decision on a composed answer (the session's pending approval of kind `review`). */
export interface DecideReviewInput {
  sessionId: string;
  /** The caller's tenant: another tenant's session is unknown to them. */
  tenant: string;
  decision: ReviewDecision;
}

/** A person's answer to a question a node's agent asked (an approval of kind `input`). */
export interface AnswerInputInput {
  sessionId: string;
  inputId: string;
  /** The caller's tenant: another tenant's session is unknown to them. */
  tenant: string;
  text: string;
}

/** Options for {@link SessionStore.update}. */
export interface UpdateSessionOptions {
  /**
   * The session as the caller last created, wrote or read it: when Redis still holds exactly
   * this and the lock is free, the change lands in one round trip.
   */
  expected?: Session | undefined;
  /**
   * The owner of the session's runner lease: when the change ends the session (no longer
   * `running` or waiting), the lease is released in the same write, if this owner still holds
   * it — a run's last write and its lease's release in one round trip.
   */
  releaseRunner?: string | undefined;
}

/** Options for {@link SessionStore.list}. */
export interface ListSessionsOptions {
  /** At most this many sessions. @default 50 */
  limit?: number | undefined;
}

/** Receives the events published for one session. */
export type SessionEventListener = (event: SessionEvent) => void;

/** Ends one subscription. */
export type Unsubscribe = () => Promise<void>;

/** An approval that {@link SessionStore.expireOverdueApprovals} marked expired. */
export interface ExpiredApproval {
  sessionId: string;
  approvalId: string;
}

/**
 * Durable workflow sessions in Redis (docs/architecture.md §6): JSON with a TTL refreshed by every
 * change, every change under a Redlock lock on the session id (or, for a writer that holds the
 * session as stored, a compare-and-set that no locked change can interleave with), approvals
 * decided at most once, events across replicas over pub/sub, and leases saying who runs and who
 * streams a session.
 */
export interface SessionStore {
  /** Stores a new `running` session. @throws ConflictError when the id is taken */
  create(init: NewSession): Promise<Session>;
  /**
   * Stores a new `running` session and takes its runner lease for `runner.owner`, in one script:
   * the session and the lease land together or not at all — what a new run does before its first
   * event. Its tenant and active index entries are written before that script and again after it
   * (they are in other slots of a Redis Cluster).
   * @throws ConflictError when the id is taken, or its runner lease is held (a stale lease of a
   *   session with the same id)
   */
  createWithRunner(
    init: NewSession,
    runner: NewRunner,
  ): Promise<{ session: Session; lease: Lease }>;
  /** The session, or undefined when it is unknown or expired. */
  get(id: string): Promise<Session | undefined>;
  /**
   * The session if it belongs to `tenant`.
   * @throws NotFoundError when it is missing, expired or another tenant's (the same error for all three)
   */
  getForTenant(id: string, tenant: string): Promise<Session>;
  /** The tenant's sessions, newest first; ids whose session has expired leave the index. */
  list(tenant: string, options?: ListSessionsOptions): Promise<Session[]>;
  /**
   * Reads, changes and writes the session under its lock, and refreshes its TTL. `mutate` changes
   * the draft in place and may return a value; if it throws, nothing is written. `updatedAt` is
   * set afterwards, and the result must still match the session schema.
   * @throws NotFoundError when the session is unknown or expired
   * @throws ConflictError when the lock cannot be taken (or was lost before the write)
   *
   * With `expected` (the session exactly as this caller last created, wrote or read it), the
   * change is first tried in one round trip without the lock (plus the index updates of a change
   * that moves the session in or out of an index): one script writes it only while
   * nobody holds the lock and the stored session is still exactly `expected` (compared by SHA-1).
   * Otherwise it falls back to the locked read-modify-write, so `mutate` may run twice (first on
   * a copy of `expected`): it must change only the draft. That first try is not checked against
   * the session schema: it is a run's own typed changes to its own session, several per run, and
   * the check costs as much as the rest of the write; the locked path (every change made from
   * outside a run) is checked.
   */
  update<T = void>(
    id: string,
    mutate: (draft: Session) => T,
    options?: UpdateSessionOptions,
  ): Promise<{ session: Session; value: T }>;
  /**
   * Adds a pending approval (the orchestrator, when an agent asks or for plan approval) or
   * question (kind `input`); the session's status follows in the same write
   * ({@link syncWaitingStatus}).
   * @throws ConflictError when the session already has an approval with that id
   */
  addApproval(id: string, approval: NewApproval): Promise<Approval>;
  /**
   * Records a person's decision under the lock and publishes `approval-decided`.
   * @throws NotFoundError for an unknown session, another tenant's, or an unknown approval
   * @throws ConflictError when the approval is no longer pending (an overdue pending one is
   *   marked `expired` first) or when the lock is busy
   */
  decideApproval(input: DecideApprovalInput): Promise<Approval>;
  /**
   * Records a person's answer to a question (an approval of kind `input`) under the lock: it
   * becomes `answered` with the text, and `approval-decided` is published.
   * @throws NotFoundError for an unknown session, another tenant's, or an unknown question
   * @throws ConflictError when the question is no longer pending or the lock is busy
   */
  answerInput(input: AnswerInputInput): Promise<Approval>;
  /**
   * Records a person's review of the composed answer under the lock: the session's pending review
   * becomes `approved` (`approve`) or `denied` (sent back: `revise`, `replan`, `recompose`), its
   * round records the decision, steps and feedback, and `approval-decided` is published.
   * @throws NotFoundError for an unknown session or another tenant's
   * @throws ConflictError when no review is pending (never asked, decided already, expired) or
   *   the lock is busy
   * @throws ValidationError when `revise` names a step the plan does not have (the error names the
   *   plan's steps)
   */
  decideReview(input: DecideReviewInput): Promise<Approval>;
  /** Publishes an event to every subscriber of the session, on any replica. */
  publish(id: string, event: SessionEvent): Promise<void>;
  /**
   * Listens to the session's events until the returned function is called. Resolves once events
   * published from then on are heard. A store's subscriptions share one pattern subscription on
   * its subscriber connection, taken by the first: later subscriptions, and their ends, send no
   * Redis command. On a Redis Cluster created with `shardedSubscribers: true`, each session's
   * channel is subscribed to (`SSUBSCRIBE`) by its first listener and left by its last.
   */
  subscribe(id: string, listener: SessionEventListener): Promise<Unsubscribe>;
  /**
   * Marks every pending approval past its expiry `expired` and publishes `approval-decided` for
   * each (run at orchestrator start-up). Sessions whose lock is busy are skipped.
   */
  expireOverdueApprovals(now?: Date): Promise<ExpiredApproval[]>;
  /**
   * Ids of the sessions still `running`, `waiting_approval` or `waiting_input` (entries of
   * expired or ended sessions are dropped from the index as they are found): what an
   * orchestrator checks for runs whose runner died.
   */
  listActive(): Promise<string[]>;
  /**
   * How many sessions have an approval or a question pending (one `HLEN` of the
   * pending-approvals index, whatever the number of sessions): the orchestrator's
   * `orchestrator_sessions_awaiting_approval` gauge. Overdue approvals count until
   * {@link SessionStore.expireOverdueApprovals} expires them.
   */
  countAwaitingApproval(): Promise<number>;
  /**
   * How many of the tenant's sessions have an approval or a question pending (the sessions
   * `waiting_approval` or `waiting_input`): one `SCARD` of the tenant's pending-approvals set,
   * whatever the number of sessions, capped at `limit` (the gateway's waiting-runs cap only needs
   * to know whether it is reached). Overdue approvals count until they are expired, like
   * {@link SessionStore.countAwaitingApproval}.
   * @param limit @default 0 (count them all)
   */
  countAwaitingApprovalForTenant(tenant: string, limit?: number): Promise<number>;
  /**
   * Who runs a session: one orchestrator at a time. Undefined when another holder has it.
   * @param ttlMs @default 15000
   */
  acquireRunner(id: string, owner: string, ttlMs?: number): Promise<Lease | undefined>;
  /**
   * Who streams a resumed session to a client: one at a time. Undefined when another holder has it.
   * @param ttlMs @default 15000
   */
  acquireAttach(id: string, owner: string, ttlMs?: number): Promise<Lease | undefined>;
  /** Ends every subscription and closes the subscriber connection (not the command connection). */
  close(): Promise<void>;
}
