import { createHash } from 'node:crypto';
import {
  BadRequestError,
  ConflictError,
  InternalError,
  NotFoundError,
  ServiceUnavailableError,
  safeParseJson,
  validationErrorFromZod,
} from '@fleet/errors';
import type { Cluster, Redis } from 'ioredis';
import Redlock, { ExecutionError, ResourceLockedError, type Lock } from 'redlock';
import { acquireLease, heldLease, type Lease } from './lease';
import {
  approvalSchema,
  isActiveStatus,
  syncWaitingStatus,
  sessionSchema,
  type Approval,
  type Session,
  type SessionEvent,
} from './session-schema';
import {
  createScript,
  createWithRunnerScript,
  compareAndSetScript,
  fencedWriteScript,
} from './internal/session-scripts';
import {
  checkReviewSteps,
  isOverdue,
  pendingCheck,
  pendingReview,
  sessionNotFound,
} from './internal/approval-checks';
import { newSession } from './internal/new-session';
import { SessionEventBus } from './internal/session-events';
import {
  dropFromTenant,
  dropPending,
  writeIndexed,
  type IndexState,
  type IndexTarget,
} from './internal/session-indexes';
import { sessionKeys, type SessionKeys } from './internal/session-keys';
import type {
  AnswerInputInput,
  DecideApprovalInput,
  DecideReviewInput,
  ExpiredApproval,
  ListSessionsOptions,
  NewApproval,
  NewRunner,
  NewSession,
  SessionEventListener,
  SessionStore,
  SessionStoreOptions,
  Unsubscribe,
  UpdateSessionOptions,
} from './session-store-types';

export type {
  AnswerInputInput,
  DecideApprovalInput,
  DecideReviewInput,
  ExpiredApproval,
  ListSessionsOptions,
  NewApproval,
  NewRunner,
  NewSession,
  SessionEventListener,
  SessionStore,
  SessionStoreOptions,
  Unsubscribe,
  UpdateSessionOptions,
} from './session-store-types';

const DEFAULT_LEASE_TTL_MS = 15_000;
const DEFAULT_LIST_LIMIT = 50;

/**
 * Builds the session store over one ioredis connection, a single Redis or a Redis Cluster
 * (docs/architecture.md §3, §6).
 *
 * - A session is JSON at `fleet:{id}:session`, parsed with zod on every read, written with
 *   `SET … EX ttlSeconds` on every change.
 * - Every change is a read-modify-write under a Redlock lock at `fleet:{id}:lock`; the write
 *   itself checks the lock is still held. A lock that cannot be had within its few retries is a
 *   ConflictError (409).
 * - A sorted set per tenant (`fleet:{tenant:<tenant>}:sessions`) lists its sessions; fleet-wide,
 *   `fleet:{sessions}:pending-approvals` feeds {@link SessionStore.expireOverdueApprovals} and
 *   `fleet:{sessions}:active` {@link SessionStore.listActive}.
 * - Events go over pub/sub on `fleet:{id}:events`, read through one subscriber connection
 *   (`redis.duplicate()`, opened on the first `subscribe`); sharded pub/sub on a Cluster created
 *   with `shardedSubscribers: true` (./internal/session-events.ts).
 *
 * Redis Cluster: each script touches one session's keys only, which share the hash tag `{id}`
 * (./internal/session-keys.ts); the indexes, in the tenant's slot and a fleet-wide slot, are kept
 * by scripts of their own around the session's write, in an order that a crash can leave an
 * index entry too many but never one missing (./internal/session-indexes.ts). No command or
 * script spans slots.
 *
 * Keys of the layout before Cluster support (`fleet:session:{id}`, `fleet:sessions:…`,
 * `fleet:lock:session:{id}`, `fleet:lease:session:…`) are moved by {@link migrateSessionKeys}.
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
  private readonly redis: Redis | Cluster;
  private readonly ttlSeconds: number;
  private readonly keys: SessionKeys;
  /** Where the indexes are kept: this connection, these names. */
  private readonly indexes: IndexTarget;
  private readonly lockTtlMs: number;
  private readonly redlock: Redlock;
  /** The sessions' events over pub/sub. */
  private readonly events: SessionEventBus;
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
    keyPrefix,
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
    this.keys = sessionKeys(keyPrefix);
    this.indexes = { redis, keys: this.keys };
    this.lockTtlMs = lockTtlMs;
    this.events = new SessionEventBus(redis, this.keys);
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
    let created: unknown;
    await this.writeIndexed(session, { createdAtMs, previous: undefined }, async () => {
      created = await createScript.run({
        redis: this.redis,
        keys: [this.keys.session(session.id)],
        args: [json, this.ttlSeconds],
      });
      return created === 1;
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
    const leaseKey = this.keys.lease('runner', session.id);
    let created: unknown;
    await this.writeIndexed(session, { createdAtMs, previous: undefined }, async () => {
      created = await createWithRunnerScript.run({
        redis: this.redis,
        keys: [this.keys.session(session.id), leaseKey],
        args: [json, this.ttlSeconds, owner, ttlMs],
      });
      return created === 1;
    });
    if (created === 0) throw new ConflictError(`Session ${session.id} already exists.`);
    if (created !== 1) {
      throw new ConflictError(`Session ${session.id}: its runner lease is held by another owner.`);
    }
    this.stored.set(session, { json, exact: true });
    return { session, lease: heldLease({ redis: this.redis, key: leaseKey, owner, ttlMs }) };
  }

  async get(id: string): Promise<Session | undefined> {
    const text = await this.redis.get(this.keys.session(id));
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
    const index = this.keys.tenantIndex(tenant);
    const sessions: Session[] = [];
    const seen = new Set<string>();
    let offset = 0;
    while (sessions.length < limit) {
      const ids = await this.redis.zrevrange(index, offset, offset + limit - 1);
      if (ids.length === 0) break;
      // One GET per session, not an MGET: on a Cluster the sessions are in as many slots.
      const texts = await this.getTexts(ids);
      const stale: string[] = [];
      ids.forEach((id, position) => {
        const text = texts[position] ?? null;
        if (text === null) {
          stale.push(id);
          return;
        }
        if (seen.has(id)) return;
        seen.add(id);
        const session = this.parseSession(id, text);
        if (session.tenant === tenant && sessions.length < limit) sessions.push(session);
      });
      await dropFromTenant(this.indexes, tenant, stale);
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
      const sha = this.storedSha(expected);
      // `expected` is the stored session whenever the script writes: its index state is the one
      // the change moves from.
      const previous = indexState(expected);
      const written = await this.writeIndexed(session, { previous }, async () => {
        const result = await compareAndSetScript.run({
          redis: this.redis,
          keys: this.writeKeys(session.id),
          args: [sha, ...this.writeArgs(session, { json, releaseRunner })],
        });
        return result === 1;
      });
      if (written) {
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
      await this.write(session, { lock, json, releaseRunner, previous: indexState(current) });
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

  async listActive(): Promise<string[]> {
    const index = this.keys.active();
    const ids = await this.redis.smembers(index);
    if (ids.length === 0) return [];
    const texts = await this.getTexts(ids);
    // An entry whose session is gone, or no longer active (left by a crash between a session's
    // write and its index update), leaves the index; a writer that made it active again at the
    // same time adds it back after its write (./internal/session-indexes.ts).
    const open = ids.filter((_id, position) => isOpen(texts[position] ?? null));
    const dropped = ids.filter((_id, position) => !isOpen(texts[position] ?? null));
    if (dropped.length > 0) await this.redis.srem(index, ...dropped);
    return open;
  }

  async countAwaitingApproval(): Promise<number> {
    return this.redis.hlen(this.keys.pending());
  }

  async countAwaitingApprovalForTenant(tenant: string, limit = 0): Promise<number> {
    // The tenant's own pending set, in its slot: one SCARD, whatever the number of sessions.
    const count = await this.redis.scard(this.keys.tenantPending(tenant));
    return limit > 0 ? Math.min(count, limit) : count;
  }

  async expireOverdueApprovals(now: Date = new Date()): Promise<ExpiredApproval[]> {
    const expired: ExpiredApproval[] = [];
    // id → tenant: the tenant names the tenant's pending set of a session that is gone.
    const entries = await this.redis.hgetall(this.keys.pending());
    for (const [id, tenant] of Object.entries(entries)) {
      const session = await this.get(id);
      if (session === undefined) {
        await dropPending(this.indexes, { id, tenant });
        continue;
      }
      const pending = Object.values(session.approvals).filter((a) => a.status === 'pending');
      if (pending.length === 0) {
        // Left by a crash between a write and its index update (a writer adding an approval at
        // the same time adds the entries back after its write).
        await dropPending(this.indexes, { id, tenant: session.tenant });
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

  publish(id: string, event: SessionEvent): Promise<void> {
    return this.events.publish(id, event);
  }

  subscribe(id: string, listener: SessionEventListener): Promise<Unsubscribe> {
    return this.events.subscribe(id, listener);
  }

  close(): Promise<void> {
    return this.events.close();
  }

  acquireRunner(
    id: string,
    owner: string,
    ttlMs: number = DEFAULT_LEASE_TTL_MS,
  ): Promise<Lease | undefined> {
    return acquireLease({ redis: this.redis, key: this.keys.lease('runner', id), owner, ttlMs });
  }

  acquireAttach(
    id: string,
    owner: string,
    ttlMs: number = DEFAULT_LEASE_TTL_MS,
  ): Promise<Lease | undefined> {
    return acquireLease({ redis: this.redis, key: this.keys.lease('attach', id), owner, ttlMs });
  }

  /** The stored JSON of each session (null when gone): one GET each, as they span slots. */
  private getTexts(ids: readonly string[]): Promise<(string | null)[]> {
    return Promise.all(ids.map((id) => this.redis.get(this.keys.session(id))));
  }

  /**
   * Runs `write` (a script in the session's slot) with the indexes kept around it
   * (./internal/session-indexes.ts); `previous` is the index state the change moves from
   * (undefined: a new session).
   */
  private writeIndexed(
    session: Session,
    { createdAtMs, previous }: { createdAtMs?: number; previous: IndexState | undefined },
    write: () => Promise<boolean>,
  ): Promise<boolean> {
    return writeIndexed(
      this.indexes,
      {
        id: session.id,
        tenant: session.tenant,
        createdAtMs: createdAtMs ?? (Date.parse(session.createdAt) || 0),
        ttlMs: this.ttlSeconds * 1000,
        previous,
        next: indexState(session),
      },
      write,
    );
  }

  private parseSession(id: string, text: string): Session {
    const parsed = safeParseJson({ text, schema: sessionSchema, subject: `Session ${id}` });
    // A session this code cannot read is a bug or a version skew, not the caller's fault: a 500.
    if (!parsed.success) throw new InternalError(undefined, { cause: parsed.error });
    return parsed.value;
  }

  private async lock(id: string): Promise<Lock> {
    try {
      return await this.redlock.acquire([this.keys.lock(id)], this.lockTtlMs);
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
    {
      lock,
      json,
      releaseRunner,
      previous,
    }: { lock: Lock; json: string; releaseRunner: string; previous: IndexState },
  ): Promise<void> {
    const written = await this.writeIndexed(session, { previous }, async () => {
      const result = await fencedWriteScript.run({
        redis: this.redis,
        keys: this.writeKeys(session.id),
        args: [lock.value, ...this.writeArgs(session, { json, releaseRunner })],
      });
      return result === 1;
    });
    if (!written) {
      throw new ConflictError(
        `Session ${session.id}: the lock expired before the change was written; try again.`,
      );
    }
  }

  /** The keys both update scripts touch, all in the session's slot: lock, session, runner lease. */
  private writeKeys(id: string): string[] {
    return [this.keys.lock(id), this.keys.session(id), this.keys.lease('runner', id)];
  }

  /**
   * Both update scripts' arguments after their guard: json, ttl, active, the runner lease's owner
   * to release once inactive.
   */
  private writeArgs(
    session: Session,
    { json, releaseRunner }: { json: string; releaseRunner: string },
  ): (string | number)[] {
    return [json, this.ttlSeconds, isActiveStatus(session.status) ? '1' : '0', releaseRunner];
  }
}

/** Which indexes `session` belongs in. */
function indexState(session: Session): IndexState {
  return {
    pending: Object.values(session.approvals).some((a) => a.status === 'pending'),
    active: isActiveStatus(session.status),
  };
}

/**
 * True when a stored session (its JSON, null when gone) is still running or waiting. Read without
 * the schema (only its status); an unreadable one counts as open, as it did before it was read.
 */
function isOpen(text: string | null): boolean {
  if (text === null) return false;
  try {
    const { status } = JSON.parse(text) as { status?: unknown };
    return typeof status !== 'string' || isActiveStatus(status as Session['status']);
  } catch {
    return true;
  }
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** True when Redlock gave up because the lock was held, not because Redis failed. */
async function isLockContention(error: unknown): Promise<boolean> {
  if (!(error instanceof ExecutionError)) return false;
  const attempts = await Promise.all(error.attempts);
  return attempts.every((stats) =>
    [...stats.votesAgainst.values()].every((vote) => vote instanceof ResourceLockedError),
  );
}
