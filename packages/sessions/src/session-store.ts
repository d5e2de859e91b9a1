import { createHash, randomUUID } from 'node:crypto';
import type {
  AgentSteering,
  ApprovalStatus,
  HistoryMessage,
  ReviewDecision,
  ToolPolicy,
} from '@fleet/a2a';
import {
  BadRequestError,
  ConflictError,
  InternalError,
  ValidationError,
  NotFoundError,
  ServiceUnavailableError,
  safeParseJson,
  validationErrorFromZod,
} from '@fleet/errors';
import type { Redis } from 'ioredis';
import Redlock, { ExecutionError, ResourceLockedError, type Lock } from 'redlock';
import { defineRedisScript } from './internal/redis-script';
import { acquireLease, heldLease, type Lease } from './lease';
import {
  approvalSchema,
  isActiveStatus,
  latestReview,
  syncWaitingStatus,
  sessionEventSchema,
  sessionSchema,
  type Approval,
  type Session,
  type SessionEvent,
} from './session-schema';

/** Options for {@link createSessionStore}. */
export interface SessionStoreOptions {
  /** The connection for commands; the store duplicates it once for its subscriptions. */
  redis: Redis;
  /** A session expires this long after its last change. @default 604800 (7 days) */
  ttlSeconds?: number;
  /**
   * Sessions live at `${keyPrefix}:{id}`, their events on `${keyPrefix}:{id}:events` (the store
   * listens to `${keyPrefix}:*:events`), the indexes at `${keyPrefix}s:tenant:{tenant}` and
   * `${keyPrefix}s:pending-approvals`.
   * @default 'fleet:session'
   */
  keyPrefix?: string;
  /**
   * Lock keys, `${lockPrefix}:{id}`; kept apart from the sessions so `fleet:session:*` finds only
   * sessions. @default 'fleet:lock:session'
   */
  lockPrefix?: string;
  /** Lease keys, `${leasePrefix}:runner:{id}` and `${leasePrefix}:attach:{id}`. @default 'fleet:lease:session' */
  leasePrefix?: string;
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
   * Stores a new `running` session and takes its runner lease for `runner.owner`, in one script
   * (one round trip): the session, its tenant and active indexes, and the lease land together or
   * not at all — what a new run does before its first event.
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
   * change is first tried in one round trip without the lock: one script writes it only while
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
   * Redis command.
   */
  subscribe(id: string, listener: SessionEventListener): Promise<Unsubscribe>;
  /**
   * Marks every pending approval past its expiry `expired` and publishes `approval-decided` for
   * each (run at orchestrator start-up). Sessions whose lock is busy are skipped.
   */
  expireOverdueApprovals(now?: Date): Promise<ExpiredApproval[]>;
  /**
   * Ids of the sessions still `running`, `waiting_approval` or `waiting_input` (expired ones are dropped from the
   * index as they are found): what an orchestrator checks for runs whose runner died.
   */
  listActive(): Promise<string[]>;
  /**
   * How many sessions have an approval or a question pending (one `SCARD` of the
   * pending-approvals index, whatever the number of sessions): the orchestrator's
   * `orchestrator_sessions_awaiting_approval` gauge. Overdue approvals count until
   * {@link SessionStore.expireOverdueApprovals} expires them.
   */
  countAwaitingApproval(): Promise<number>;
  /**
   * How many of the tenant's sessions have an approval or a question pending (the sessions
   * `waiting_approval` or `waiting_input`): one `ZINTERCARD` of the tenant's index and the
   * pending-approvals index, stopping at `limit` (the gateway's waiting-runs cap only needs to know
   * whether it is reached). Overdue approvals count until they are expired, like
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

const DEFAULT_LEASE_TTL_MS = 15_000;
const DEFAULT_LIST_LIMIT = 50;

/** The index entries of a new session. KEYS[2..3]: tenant index, active index. ARGV: as below. */
const INDEX_NEW_SESSION_LUA = `redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[3])
`;

/**
 * Creates a session atomically with its tenant-index and active-index entries. KEYS: session,
 * tenant index, active index.
 * ARGV: json, ttl seconds, id, createdAt ms.
 */
const createScript = defineRedisScript(`
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2]) then return 0 end
${INDEX_NEW_SESSION_LUA}return 1
`);

/**
 * {@link createScript} and the session's runner lease, together or not at all. KEYS: as
 * {@link createScript}, then the runner lease. ARGV: as {@link createScript}, then the lease's
 * owner and TTL in ms. Returns 1 when written, 0 when the id is taken, -1 when the lease is held.
 */
const createWithRunnerScript = defineRedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[4]) == 1 then return -1 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
${INDEX_NEW_SESSION_LUA}redis.call('SET', KEYS[4], ARGV[5], 'PX', ARGV[6])
return 1
`);

/**
 * The write both session scripts end with: the session with its TTL and its three indexes, and —
 * once it is no longer active — its runner lease, when ARGV[8] names the owner holding it.
 * KEYS[2..6]: session, pending-approvals index, tenant index, active index, runner lease.
 * ARGV[2..8]: json, ttl seconds, id, has pending approvals ('1' | '0'), createdAt ms, still active
 * ('1' | '0'), the runner lease's owner to release ('' for none).
 */
const WRITE_SESSION_LUA = `redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
if ARGV[5] == '1' then
  redis.call('SADD', KEYS[3], ARGV[4])
else
  redis.call('SREM', KEYS[3], ARGV[4])
end
redis.call('ZADD', KEYS[4], 'NX', ARGV[6], ARGV[4])
redis.call('EXPIRE', KEYS[4], ARGV[3])
if ARGV[7] == '1' then
  redis.call('SADD', KEYS[5], ARGV[4])
else
  redis.call('SREM', KEYS[5], ARGV[4])
  if ARGV[8] ~= '' and redis.call('GET', KEYS[6]) == ARGV[8] then redis.call('DEL', KEYS[6]) end
end
return 1
`;

/**
 * Writes a session only while the writer still holds its lock (a fencing check, so a writer whose
 * lock expired mid-change cannot overwrite a newer write), and keeps both indexes in step.
 * KEYS: lock, session, pending-approvals index, tenant index, active index, runner lease.
 * ARGV: lock value, json, ttl seconds, id, has pending approvals ('1' | '0'), createdAt ms,
 * still active ('1' | '0'), runner lease owner to release once inactive ('' for none).
 */
const fencedWriteScript = defineRedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
${WRITE_SESSION_LUA}`);

/**
 * Writes a session without taking its lock, only when nobody holds the lock and the stored session
 * is still exactly the one the writer started from (its SHA-1): a compare-and-set that no locked
 * read-modify-write can interleave with (that one holds the lock from its read to its write).
 * KEYS: as {@link fencedWriteScript}.
 * ARGV: SHA-1 of the expected JSON, then as {@link fencedWriteScript}.
 * Returns 1 when written, 0 when the lock is held or the session changed, -1 when it is gone.
 */
const compareAndSetScript = defineRedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local current = redis.call('GET', KEYS[2])
if not current then return -1 end
if redis.sha1hex(current) ~= ARGV[1] then return 0 end
${WRITE_SESSION_LUA}`);

/**
 * Builds the session store over one ioredis connection (docs/architecture.md §3, §6).
 *
 * - A session is JSON at `fleet:session:{id}`, parsed with zod on every read, written with
 *   `SET … EX ttlSeconds` on every change.
 * - Every change is a read-modify-write under a Redlock lock at `fleet:lock:session:{id}`; the write
 *   itself checks the lock is still held. A lock that cannot be had within its few retries is a
 *   ConflictError (409).
 * - A sorted set per tenant lists its sessions; a set of session ids with pending approvals feeds
 *   {@link SessionStore.expireOverdueApprovals}.
 * - Events go over pub/sub on `fleet:session:{id}:events`, read through one subscriber connection
 *   (`redis.duplicate()`, opened on the first `subscribe`).
 *
 * Single Redis only (not Cluster): the scripts touch keys in several hash slots.
 *
 * @example
 * const sessions = createSessionStore({ redis, ttlSeconds: config.sessionTtlSeconds });
 * const session = await sessions.create({ tenant: 'acme', request: 'Plan my trip' });
 * await sessions.update(session.id, (draft) => { draft.status = 'completed'; });
 */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  return new RedisSessionStore(options);
}

class RedisSessionStore implements SessionStore {
  private readonly redis: Redis;
  private readonly ttlSeconds: number;
  private readonly keyPrefix: string;
  private readonly lockPrefix: string;
  private readonly leasePrefix: string;
  private readonly lockTtlMs: number;
  private readonly redlock: Redlock;
  private readonly listeners = new Map<string, Set<SessionEventListener>>();
  private subscriber: Redis | undefined;
  /** The pattern subscription every `subscribe` shares, once asked for (until it fails). */
  private listening: Promise<void> | undefined;
  /**
   * The JSON stored for each session object this store created, read or wrote (and its SHA-1
   * once needed): an update from such an `expected` session compares that hash, with no
   * serialization of the object, and — when the object is that JSON parsed with nothing added
   * (`exact`: it was written from it, not read with defaults filled in) — starts from the text.
   */
  private readonly stored = new WeakMap<Session, { json: string; exact: boolean; sha?: string }>();

  constructor({
    redis,
    ttlSeconds = 604_800,
    keyPrefix = 'fleet:session',
    lockPrefix = 'fleet:lock:session',
    leasePrefix = 'fleet:lease:session',
    lockTtlMs = 5000,
    lockRetryCount = 20,
    lockRetryDelayMs = 25,
  }: SessionStoreOptions) {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) {
      throw new RangeError(`ttlSeconds must be a positive integer, not ${ttlSeconds}.`);
    }
    if (!Number.isInteger(lockTtlMs) || lockTtlMs <= 0) {
      throw new RangeError(`lockTtlMs must be a positive integer, not ${lockTtlMs}.`);
    }
    this.redis = redis;
    this.ttlSeconds = ttlSeconds;
    this.keyPrefix = keyPrefix;
    this.lockPrefix = lockPrefix;
    this.leasePrefix = leasePrefix;
    this.lockTtlMs = lockTtlMs;
    this.redlock = new Redlock([redis], {
      retryCount: lockRetryCount,
      retryDelay: lockRetryDelayMs,
      retryJitter: lockRetryDelayMs,
    });
    // Redlock reports every failed attempt here; without a listener they would be thrown.
    this.redlock.on('error', () => undefined);
  }

  async create(init: NewSession): Promise<Session> {
    const { session, json, createdAtMs } = newSession(init);
    const created = await createScript.run({
      redis: this.redis,
      keys: [
        this.sessionKey(session.id),
        this.tenantIndexKey(session.tenant),
        this.activeIndexKey(),
      ],
      args: [json, this.ttlSeconds, session.id, createdAtMs],
    });
    if (created !== 1) throw new ConflictError(`Session ${session.id} already exists.`);
    this.stored.set(session, { json, exact: true });
    return session;
  }

  async createWithRunner(
    init: NewSession,
    { owner, ttlMs = DEFAULT_LEASE_TTL_MS }: NewRunner,
  ): Promise<{ session: Session; lease: Lease }> {
    if (!Number.isInteger(ttlMs) || ttlMs <= 0) {
      throw new RangeError(`A lease TTL must be a positive integer of milliseconds, not ${ttlMs}.`);
    }
    if (owner === '') throw new RangeError('A lease owner must not be empty.');
    const { session, json, createdAtMs } = newSession(init);
    const leaseKey = this.leaseKey('runner', session.id);
    const created = await createWithRunnerScript.run({
      redis: this.redis,
      keys: [
        this.sessionKey(session.id),
        this.tenantIndexKey(session.tenant),
        this.activeIndexKey(),
        leaseKey,
      ],
      args: [json, this.ttlSeconds, session.id, createdAtMs, owner, ttlMs],
    });
    if (created === 0) throw new ConflictError(`Session ${session.id} already exists.`);
    if (created !== 1) {
      throw new ConflictError(`Session ${session.id}: its runner lease is held by another owner.`);
    }
    this.stored.set(session, { json, exact: true });
    return { session, lease: heldLease({ redis: this.redis, key: leaseKey, owner, ttlMs }) };
  }

  async get(id: string): Promise<Session | undefined> {
    const text = await this.redis.get(this.sessionKey(id));
    if (text === null) return undefined;
    const session = this.parseSession(id, text);
    this.stored.set(session, { json: text, exact: false });
    return session;
  }

  async getForTenant(id: string, tenant: string): Promise<Session> {
    const session = await this.get(id);
    if (session === undefined || session.tenant !== tenant) throw sessionNotFound(id);
    return session;
  }

  async list(
    tenant: string,
    { limit = DEFAULT_LIST_LIMIT }: ListSessionsOptions = {},
  ): Promise<Session[]> {
    if (!Number.isInteger(limit) || limit <= 0) {
      throw new BadRequestError(`limit must be a positive integer, not ${limit}.`);
    }
    const index = this.tenantIndexKey(tenant);
    const sessions: Session[] = [];
    const seen = new Set<string>();
    let offset = 0;
    while (sessions.length < limit) {
      const ids = await this.redis.zrevrange(index, offset, offset + limit - 1);
      if (ids.length === 0) break;
      const texts = await this.redis.mget(ids.map((id) => this.sessionKey(id)));
      const stale: string[] = [];
      ids.forEach((id, position) => {
        const text = texts[position];
        if (text === null || text === undefined) {
          stale.push(id);
          return;
        }
        if (seen.has(id)) return;
        seen.add(id);
        const session = this.parseSession(id, text);
        if (session.tenant === tenant && sessions.length < limit) sessions.push(session);
      });
      if (stale.length > 0) await this.redis.zrem(index, ...stale);
      // Removing the stale ids shifted the rest of the index up by as many places.
      offset += ids.length - stale.length;
    }
    return sessions;
  }

  async update<T = void>(
    id: string,
    mutate: (draft: Session) => T,
    { expected, releaseRunner = '' }: UpdateSessionOptions = {},
  ): Promise<{ session: Session; value: T }> {
    if (expected !== undefined && expected.id === id) {
      const { session, value, json } = this.applyChange(expected, mutate, { check: false });
      const written = await compareAndSetScript.run({
        redis: this.redis,
        keys: this.writeKeys(session),
        args: [this.storedSha(expected), ...this.writeArgs(session, { json, releaseRunner })],
      });
      if (written === 1) {
        this.stored.set(session, { json, exact: true });
        return { session, value };
      }
      // Changed by someone else, locked, or gone: the locked path reads it again (and answers 404).
    }
    const lock = await this.lock(id);
    try {
      const current = await this.get(id);
      if (current === undefined) throw sessionNotFound(id);
      const { session, value, json } = this.applyChange(current, mutate, { check: true });
      await this.write(session, { lock, json, releaseRunner });
      this.stored.set(session, { json, exact: true });
      return { session, value };
    } finally {
      // One try: a lock that is no longer ours will not become ours by retrying, and it expires on
      // its own if the release fails (lockTtlMs).
      await this.redlock.release(lock, { retryCount: 0 }).catch(() => undefined);
    }
  }

  /** The SHA-1 of the JSON stored for `session` (as this store last saw it stored). */
  private storedSha(session: Session): string {
    const known = this.stored.get(session);
    if (known === undefined) return sha1(JSON.stringify(session));
    known.sha ??= sha1(known.json);
    return known.sha;
  }

  /**
   * A draft of `session` to change: parsed again from the JSON it was written as (cheaper than a
   * deep copy), else a deep copy.
   */
  private draftOf(session: Session): Session {
    const known = this.stored.get(session);
    return known?.exact === true ? (JSON.parse(known.json) as Session) : structuredClone(session);
  }

  /**
   * `mutate` applied to a copy of `current`, with `updatedAt` set and (with `check`) the schema
   * checked; `json` is what to store.
   */
  private applyChange<T>(
    current: Session,
    mutate: (draft: Session) => T,
    { check }: { check: boolean },
  ): { session: Session; value: T; json: string } {
    const id = current.id;
    const draft = this.draftOf(current);
    const value = mutate(draft);
    if (draft.id !== current.id || draft.tenant !== current.tenant) {
      throw new InternalError(`Session ${id}: an update may not change its id or tenant.`);
    }
    draft.updatedAt = new Date().toISOString();
    if (!check) return { session: draft, value, json: JSON.stringify(draft) };
    const checked = sessionSchema.safeParse(draft);
    if (!checked.success) {
      throw new InternalError(`Session ${id}: the change does not match the session schema.`, {
        cause: validationErrorFromZod(checked.error, { subject: `Session ${id}` }),
      });
    }
    return { session: checked.data, value, json: JSON.stringify(checked.data) };
  }

  async addApproval(id: string, approval: NewApproval): Promise<Approval> {
    const checked = approvalSchema.safeParse({
      ...approval,
      status: 'pending',
      createdAt: approval.createdAt ?? new Date().toISOString(),
    });
    if (!checked.success) throw validationErrorFromZod(checked.error, { subject: 'The approval' });
    const pending = checked.data;
    await this.update(id, (draft) => {
      if (draft.approvals[pending.id] !== undefined) {
        throw new ConflictError(`Session ${id} already has an approval ${pending.id}.`);
      }
      draft.approvals[pending.id] = pending;
      // In the same write, so a client told about the approval never reads a `running` session.
      syncWaitingStatus(draft);
    });
    return pending;
  }

  async answerInput({ sessionId, inputId, tenant, text }: AnswerInputInput): Promise<Approval> {
    const before = await this.getForTenant(sessionId, tenant);
    pendingCheck(before, inputId, 'input');
    const { value: outcome } = await this.update(sessionId, (draft) => {
      if (draft.tenant !== tenant) throw sessionNotFound(sessionId);
      const input = pendingCheck(draft, inputId, 'input');
      const now = new Date();
      input.decidedAt = now.toISOString();
      if (isOverdue(input, now)) {
        input.status = 'expired';
        return { expired: true as const, input };
      }
      input.status = 'answered';
      input.answer = text;
      return { expired: false as const, input };
    });
    await this.publish(sessionId, {
      type: 'approval-decided',
      approvalId: inputId,
      status: outcome.input.status,
    });
    if (outcome.expired) {
      throw new ConflictError(`Question ${inputId} has expired.`, {
        details: { status: 'expired' },
      });
    }
    return outcome.input;
  }

  async decideApproval({
    sessionId,
    approvalId,
    tenant,
    decision,
    instructions,
  }: DecideApprovalInput): Promise<Approval> {
    // Answer unknown sessions and settled approvals without the lock: a stranger never learns from
    // a 409 that a session exists, and the losers of a race do not queue for the lock. A settled
    // approval never goes back to pending, so this answer cannot be stale.
    const before = await this.getForTenant(sessionId, tenant);
    pendingCheck(before, approvalId, 'approval');

    const { value: outcome } = await this.update(sessionId, (draft) => {
      if (draft.tenant !== tenant) throw sessionNotFound(sessionId);
      const approval = pendingCheck(draft, approvalId, 'approval');
      const now = new Date();
      approval.decidedAt = now.toISOString();
      if (isOverdue(approval, now)) {
        approval.status = 'expired';
        return { expired: true as const, approval };
      }
      approval.status = decision === 'approve' ? 'approved' : 'denied';
      if (instructions !== undefined) approval.instructions = instructions;
      return { expired: false as const, approval };
    });

    await this.publish(sessionId, {
      type: 'approval-decided',
      approvalId,
      status: outcome.approval.status,
    });
    if (outcome.expired) {
      throw new ConflictError(`Approval ${approvalId} has expired.`, {
        details: { status: 'expired' },
      });
    }
    return outcome.approval;
  }

  async decideReview({ sessionId, tenant, decision }: DecideReviewInput): Promise<Approval> {
    // As for approvals: unknown sessions and settled reviews are answered without the lock.
    const before = await this.getForTenant(sessionId, tenant);
    pendingReview(before);
    checkReviewSteps(before, decision);

    const { value: outcome } = await this.update(sessionId, (draft) => {
      if (draft.tenant !== tenant) throw sessionNotFound(sessionId);
      const review = pendingReview(draft);
      checkReviewSteps(draft, decision);
      const now = new Date();
      review.decidedAt = now.toISOString();
      if (isOverdue(review, now)) {
        review.status = 'expired';
        return { expired: true as const, review };
      }
      review.status = decision.decision === 'approve' ? 'approved' : 'denied';
      const feedback =
        decision.feedback === undefined || decision.feedback === '' ? undefined : decision.feedback;
      if (review.review !== undefined) {
        review.review.decision = decision.decision;
        if (decision.steps !== undefined) review.review.targets = [...new Set(decision.steps)];
        if (feedback !== undefined) review.review.feedback = feedback;
      }
      if (feedback !== undefined) review.instructions = feedback;
      return { expired: false as const, review };
    });

    await this.publish(sessionId, {
      type: 'approval-decided',
      approvalId: outcome.review.id,
      status: outcome.review.status,
    });
    if (outcome.expired) {
      throw new ConflictError(`The review of session ${sessionId} has expired.`, {
        details: { status: 'expired' },
      });
    }
    return outcome.review;
  }

  async publish(id: string, event: SessionEvent): Promise<void> {
    await this.redis.publish(this.channel(id), JSON.stringify(event));
  }

  async subscribe(id: string, listener: SessionEventListener): Promise<Unsubscribe> {
    const channel = this.channel(id);
    let listeners = this.listeners.get(channel);
    if (listeners === undefined) {
      listeners = new Set();
      this.listeners.set(channel, listeners);
    }
    listeners.add(listener);
    try {
      await this.listen();
    } catch (error) {
      this.removeListener(channel, listener);
      throw error;
    }
    let active = true;
    return () => {
      if (active) {
        active = false;
        this.removeListener(channel, listener);
      }
      return Promise.resolve();
    };
  }

  /**
   * One `PSUBSCRIBE` of every session's channel for the whole store, taken once: a run's
   * subscription then costs no round trip, and session events (decisions, answers, cancels) are
   * rare enough for every listener of the store to receive them all and keep its own.
   */
  private listen(): Promise<void> {
    this.listening ??= this.subscriberConnection()
      .psubscribe(this.channelPattern())
      .then(
        () => undefined,
        (error: unknown) => {
          this.listening = undefined;
          throw error;
        },
      );
    return this.listening;
  }

  async listActive(): Promise<string[]> {
    const ids = await this.redis.smembers(this.activeIndexKey());
    if (ids.length === 0) return [];
    const present = await this.redis.mget(...ids.map((id) => this.sessionKey(id)));
    const gone = ids.filter((_id, index) => present[index] === null);
    if (gone.length > 0) await this.redis.srem(this.activeIndexKey(), ...gone);
    return ids.filter((_id, index) => present[index] !== null);
  }

  async countAwaitingApproval(): Promise<number> {
    return this.redis.scard(this.pendingIndexKey());
  }

  async countAwaitingApprovalForTenant(tenant: string, limit = 0): Promise<number> {
    // ZINTERCARD takes plain sets as sorted sets of score 1 (the pending index is a set).
    const count = await this.redis.call(
      'ZINTERCARD',
      2,
      this.tenantIndexKey(tenant),
      this.pendingIndexKey(),
      'LIMIT',
      limit,
    );
    return Number(count);
  }

  async expireOverdueApprovals(now: Date = new Date()): Promise<ExpiredApproval[]> {
    const expired: ExpiredApproval[] = [];
    const index = this.pendingIndexKey();
    const ids = await this.redis.smembers(index);
    for (const id of ids) {
      const session = await this.get(id);
      if (session === undefined) {
        await this.redis.srem(index, id);
        continue;
      }
      const pending = Object.values(session.approvals).filter((a) => a.status === 'pending');
      if (pending.length === 0) {
        await this.redis.srem(index, id);
        continue;
      }
      if (!pending.some((approval) => isOverdue(approval, now))) continue;
      let marked: string[];
      try {
        ({ value: marked } = await this.update(id, (draft) => {
          const ids: string[] = [];
          for (const approval of Object.values(draft.approvals)) {
            if (approval.status !== 'pending' || !isOverdue(approval, now)) continue;
            approval.status = 'expired';
            approval.decidedAt = now.toISOString();
            ids.push(approval.id);
          }
          return ids;
        }));
      } catch (error) {
        // Busy (someone else is changing it) or gone since: the next sweep sees it again.
        if (error instanceof ConflictError || error instanceof NotFoundError) continue;
        throw error;
      }
      for (const approvalId of marked) {
        expired.push({ sessionId: id, approvalId });
        await this.publish(id, { type: 'approval-decided', approvalId, status: 'expired' });
      }
    }
    return expired;
  }

  acquireRunner(
    id: string,
    owner: string,
    ttlMs: number = DEFAULT_LEASE_TTL_MS,
  ): Promise<Lease | undefined> {
    return acquireLease({ redis: this.redis, key: this.leaseKey('runner', id), owner, ttlMs });
  }

  acquireAttach(
    id: string,
    owner: string,
    ttlMs: number = DEFAULT_LEASE_TTL_MS,
  ): Promise<Lease | undefined> {
    return acquireLease({ redis: this.redis, key: this.leaseKey('attach', id), owner, ttlMs });
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.listening = undefined;
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  private sessionKey(id: string): string {
    return `${this.keyPrefix}:${id}`;
  }

  private channel(id: string): string {
    return `${this.keyPrefix}:${id}:events`;
  }

  /** Every session's channel: the key prefix with glob characters escaped. */
  private channelPattern(): string {
    return `${this.keyPrefix.replace(/[*?[\]\\]/g, '\\$&')}:*:events`;
  }

  private tenantIndexKey(tenant: string): string {
    return `${this.keyPrefix}s:tenant:${tenant}`;
  }

  private pendingIndexKey(): string {
    return `${this.keyPrefix}s:pending-approvals`;
  }

  private activeIndexKey(): string {
    return `${this.keyPrefix}s:active`;
  }

  private lockKey(id: string): string {
    return `${this.lockPrefix}:${id}`;
  }

  private leaseKey(kind: 'runner' | 'attach', id: string): string {
    return `${this.leasePrefix}:${kind}:${id}`;
  }

  private parseSession(id: string, text: string): Session {
    const parsed = safeParseJson({ text, schema: sessionSchema, subject: `Session ${id}` });
    // A session this code cannot read is a bug or a version skew, not the caller's fault: a 500.
    if (!parsed.success) throw new InternalError(undefined, { cause: parsed.error });
    return parsed.value;
  }

  private async lock(id: string): Promise<Lock> {
    try {
      return await this.redlock.acquire([this.lockKey(id)], this.lockTtlMs);
    } catch (error) {
      if (await isLockContention(error)) {
        throw new ConflictError(`Session ${id} is being changed by another request; try again.`, {
          cause: error,
        });
      }
      throw new ServiceUnavailableError(`Could not lock session ${id}: Redis did not answer.`, {
        cause: error,
      });
    }
  }

  private async write(
    session: Session,
    { lock, json, releaseRunner }: { lock: Lock; json: string; releaseRunner: string },
  ): Promise<void> {
    const written = await fencedWriteScript.run({
      redis: this.redis,
      keys: this.writeKeys(session),
      args: [lock.value, ...this.writeArgs(session, { json, releaseRunner })],
    });
    if (written !== 1) {
      throw new ConflictError(
        `Session ${session.id}: the lock expired before the change was written; try again.`,
      );
    }
  }

  /**
   * The keys both write scripts touch: lock, session, pending, tenant and active indexes, runner
   * lease.
   */
  private writeKeys(session: Session): string[] {
    return [
      this.lockKey(session.id),
      this.sessionKey(session.id),
      this.pendingIndexKey(),
      this.tenantIndexKey(session.tenant),
      this.activeIndexKey(),
      this.leaseKey('runner', session.id),
    ];
  }

  /**
   * Both write scripts' arguments after their guard: json, ttl, id, pending, createdAt, active,
   * the runner lease's owner to release once inactive.
   */
  private writeArgs(
    session: Session,
    { json, releaseRunner }: { json: string; releaseRunner: string },
  ): (string | number)[] {
    const hasPending = Object.values(session.approvals).some((a) => a.status === 'pending');
    return [
      json,
      this.ttlSeconds,
      session.id,
      hasPending ? '1' : '0',
      Date.parse(session.createdAt) || 0,
      isActiveStatus(session.status) ? '1' : '0',
      releaseRunner,
    ];
  }

  /** Removes a listener; true when it was the channel's last. */
  private removeListener(channel: string, listener: SessionEventListener): boolean {
    const listeners = this.listeners.get(channel);
    if (listeners === undefined) return false;
    listeners.delete(listener);
    if (listeners.size > 0) return false;
    this.listeners.delete(channel);
    return true;
  }

  private subscriberConnection(): Redis {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.redis.duplicate();
    subscriber.on('pmessage', (_pattern: string, channel: string, text: string) => {
      const listeners = this.listeners.get(channel);
      if (listeners === undefined) return;
      const parsed = safeParseJson({
        text,
        schema: sessionEventSchema,
        subject: 'A session event',
      });
      if (!parsed.success) return;
      for (const listener of [...listeners]) {
        try {
          listener(parsed.value);
        } catch {
          // One listener's failure must not keep the event from the others.
        }
      }
    });
    // Errors surface on the commands; without a listener ioredis would log them as unhandled.
    subscriber.on('error', () => undefined);
    this.subscriber = subscriber;
    return subscriber;
  }
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** The one answer for a missing, expired or foreign session, so none can be told apart. */
function sessionNotFound(id: string): NotFoundError {
  return new NotFoundError(`Session ${id} does not exist or has expired.`);
}

/**
 * The approval (or, for `what: 'input'`, the question) if it is still pending: a question is not
 * an approval and the other way round. @throws NotFoundError / ConflictError otherwise
 */
function pendingCheck(session: Session, id: string, what: 'approval' | 'input'): Approval {
  const approval = session.approvals[id];
  const noun = what === 'input' ? 'Question' : 'Approval';
  if (
    approval === undefined ||
    approval.kind === 'review' ||
    (approval.kind === 'input') !== (what === 'input')
  ) {
    throw new NotFoundError(`${noun} ${id} does not exist in session ${session.id}.`);
  }
  if (approval.status !== 'pending') throw approvalSettled(noun, id, approval.status);
  return approval;
}

/**
 * The session's pending review (its newest approval of kind `review`).
 * @throws ConflictError when there is none: never asked, or decided or expired already
 */
function pendingReview(session: Session): Approval {
  const latest = latestReview(session);
  if (latest === undefined) {
    throw new ConflictError(
      `Session ${session.id} is not waiting for a review: it was not started with one.`,
      {
        details: { status: session.status },
      },
    );
  }
  if (latest.status !== 'pending') {
    const word =
      latest.status === 'expired' || latest.status === 'timed_out'
        ? 'timed out'
        : 'was already decided';
    throw new ConflictError(
      `Session ${session.id} is not waiting for a review: its latest review ${word}.`,
      { details: { status: latest.status } },
    );
  }
  return latest;
}

/**
 * Every step a `revise` names is a step of the session's plan.
 * @throws ValidationError naming the unknown steps and the plan's steps
 */
function checkReviewSteps(session: Session, decision: ReviewDecision): void {
  if (decision.steps === undefined) return;
  const known = (session.plan?.nodes ?? []).map((node) => node.id);
  const unknown = decision.steps.filter((step) => !known.includes(step));
  if (unknown.length === 0) return;
  throw new ValidationError(
    `The plan has no step ${unknown.map((step) => `"${step}"`).join(', ')}: its steps are ${known.map((step) => `"${step}"`).join(', ') || 'none'}.`,
    {
      details: {
        issues: [{ path: 'steps', message: `unknown steps: ${unknown.join(', ')}` }],
        steps: known,
      },
    },
  );
}

function approvalSettled(noun: string, id: string, status: ApprovalStatus): ConflictError {
  const state = status === 'expired' || status === 'timed_out' ? 'has' : 'was already';
  const word = status === 'timed_out' ? 'timed out' : status;
  return new ConflictError(`${noun} ${id} ${state} ${word}.`, { details: { status } });
}

/** True when a pending approval can no longer be decided. An unreadable expiry never expires. */
function isOverdue(approval: Approval, now: Date): boolean {
  const expiresAt = Date.parse(approval.expiresAt);
  return !Number.isNaN(expiresAt) && expiresAt <= now.getTime();
}

/** True when Redlock gave up because the lock was held, not because Redis failed. */
async function isLockContention(error: unknown): Promise<boolean> {
  if (!(error instanceof ExecutionError)) return false;
  const attempts = await Promise.all(error.attempts);
  return attempts.every((stats) =>
    [...stats.votesAgainst.values()].every((vote) => vote instanceof ResourceLockedError),
  );
}

/** A new session as {@link SessionStore.create} stores it, checked, with its JSON. */
function newSession({
  id = randomUUID(),
  tenant,
  request,
  history = [],
  planApproval = false,
  resultReview = false,
  toolPolicy,
  steering,
  taskId,
}: NewSession): { session: Session; json: string; createdAtMs: number } {
  if (id === '') throw new BadRequestError('A session id must not be empty.');
  const now = new Date();
  const draft: Session = {
    id,
    tenant,
    status: 'running',
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    request,
    history,
    planApproval,
    resultReview,
    ...(toolPolicy === undefined ? {} : { toolPolicy }),
    ...(steering === undefined ? {} : { steering }),
    nodes: {},
    approvals: {},
    ...(taskId === undefined ? {} : { taskId }),
  };
  const checked = sessionSchema.safeParse(draft);
  if (!checked.success) throw validationErrorFromZod(checked.error, { subject: 'The session' });
  return { session: checked.data, json: JSON.stringify(checked.data), createdAtMs: now.getTime() };
}
