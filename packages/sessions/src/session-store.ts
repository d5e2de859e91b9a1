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
import type { Redis } from 'ioredis';
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
    this.events = new SessionEventBus(redis, keyPrefix);
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
    return acquireLease({ redis: this.redis, key: this.leaseKey('runner', id), owner, ttlMs });
  }

  acquireAttach(
    id: string,
    owner: string,
    ttlMs: number = DEFAULT_LEASE_TTL_MS,
  ): Promise<Lease | undefined> {
    return acquireLease({ redis: this.redis, key: this.leaseKey('attach', id), owner, ttlMs });
  }

  private sessionKey(id: string): string {
    return `${this.keyPrefix}:${id}`;
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
