import type { ServerResponse } from 'node:http';
import type { Cluster, Redis } from 'ioredis';
import { RateLimitError } from '@fleet/errors';
import type { HttpLogger } from '@fleet/http';
import type { SessionStore } from '@fleet/sessions';
import { setRateLimitHeaders, setRetryAfterMs, type LimitState } from './rate-limit-headers';
import { createRequestCounter, type CountedRequest, type RequestCounter } from './request-counter';
import { createRunSlots, type RunSlot, type RunSlots } from './run-slots';
import { createTokenCounter, type TokenCounter } from './token-counter';
import type { TenantLimitOverrides, TenantLimits, TenantLimitTable } from './tenant-limits-spec';

/** The request buckets: each hot route its own, the rest of `/v1` one together. */
export type LimitedRoute = 'chat' | 'responses' | 'embeddings' | 'api';

/** Which limit refused a request: the `limit` label of `gateway_rate_limited_total`. */
export type LimitName = 'requests' | 'tokens' | 'runs' | 'waiting';

/** Everything {@link createTenantLimiter} needs. */
export interface TenantLimiterOptions {
  /**
   * The gateway's Redis connection, one Redis or a Redis Cluster (the limits are shared by every
   * replica through it).
   */
  redis: Redis | Cluster;
  /** Counts the tenant's sessions waiting for a person (the `waiting` limit). */
  sessions: Pick<SessionStore, 'countAwaitingApprovalForTenant'>;
  /** Limits of tenants without overrides (GATEWAY_LIMIT_*). */
  defaults: TenantLimits;
  /** Overrides by tenant (GATEWAY_TENANT_LIMITS, GATEWAY_TENANT_LIMITS_FILE). @default {} */
  tenants?: TenantLimitTable;
  /** The `rpm` window in seconds (GATEWAY_LIMIT_WINDOW_SECONDS). @default 60 */
  windowSeconds?: number;
  /**
   * How often each replica sends its request and token counts to Redis and reads every replica's
   * (GATEWAY_LIMIT_SYNC_MS). Between two syncs a replica admits from memory within its share of
   * the limit; the overshoot across replicas is bounded by it (docs/limits.md). @default 1000
   */
  syncIntervalMs?: number;
  /** Seconds a refused run is told to wait (`Retry-After`). @default 5 */
  runRetryAfterSeconds?: number;
  /** How long a run slot outlives its holder's last renewal. @default 30000 */
  runLeaseMs?: number;
  /** Prefix of every key; a tenant's keys are `<keyPrefix>:{tenant:<tenant>}:…`. @default 'fleet:limits' */
  keyPrefix?: string;
  logger: HttpLogger;
  /** Told about every refused request (the metric). */
  onLimited?: (tenant: string, limit: LimitName) => void;
  /** The clock for the windows and the token day (UTC). @default Date.now */
  now?: () => number;
}

/** One request's admission. */
export interface Admission {
  /** True when the tenant has a token budget: its answers' usage should be recorded. */
  countsTokens: boolean;
}

/** Per-tenant limits, shared across gateway replicas through Redis (docs/limits.md). */
export interface TenantLimiter {
  /** A tenant's limits, overrides applied. */
  limitsOf(tenant: string): TenantLimits;
  /**
   * Counts one request in its bucket and, unless `budget` is false, checks the tenant's token
   * budget; sets the `x-ratelimit-*` headers either way. Far from the limits this is answered
   * from memory (the counts reach Redis with the background sync); near a request limit it asks
   * Redis (docs/limits.md).
   * @throws RateLimitError (429, `Retry-After`) when the bucket or the day's budget is spent
   */
  admit(request: {
    tenant: string;
    route: LimitedRoute;
    res: ServerResponse;
    budget?: boolean;
  }): Promise<Admission>;
  /**
   * Takes a concurrent-run slot for a new orchestrated run, unless the tenant already has as many
   * runs waiting for a person as its `waiting` limit.
   * @throws RateLimitError (429, `concurrency_limit_exceeded`) when refused
   */
  acquireRun(request: { tenant: string; res: ServerResponse }): Promise<RunSlot>;
  /** Adds an answer's tokens to the tenant's day (nothing for unknown usage); never throws. */
  recordTokens(tenant: string, tokens: number | undefined): void;
  /** Sends this replica's counts to Redis now (what the background sync does every interval). */
  sync(): Promise<void>;
}

const NO_SLOT: RunSlot = { release: () => undefined };

const ROUTE_NAMES: Record<LimitedRoute, string> = {
  chat: '/v1/chat/completions',
  responses: '/v1/responses',
  embeddings: '/v1/embeddings',
  api: '/v1',
};

/** What the limiter's steps share. */
interface LimiterContext {
  limitsOf: (tenant: string) => TenantLimits;
  redis: Pick<Redis | Cluster, 'status'>;
  requests: RequestCounter;
  tokens: TokenCounter;
  slots: RunSlots;
  sessions: TenantLimiterOptions['sessions'];
  windowSeconds: number;
  runRetryAfterSeconds: number;
  logger: HttpLogger;
  /** Counts the refusal and throws it. */
  refuse: (tenant: string, limit: LimitName, error: RateLimitError) => never;
  /** Logs that Redis failed a check, at most once per 10 s (every request fails while it is down). */
  warnUnchecked: (error: unknown, what: string) => void;
}

const WARN_INTERVAL_MS = 10_000;

/**
 * Builds the tenant limiter: requests per window per route bucket and tokens per UTC day, counted
 * on this replica and reconciled with Redis every `syncIntervalMs` ({@link createRequestCounter},
 * {@link createTokenCounter}), so a request far from its limits costs no Redis round trip;
 * concurrent orchestrated runs (expiring leases, {@link createRunSlots}) and sessions waiting for a
 * person (counted in the session store), both checked in Redis when a run starts. While Redis is
 * not connected, or fails a check, requests and budgets are let through (logged, no
 * `x-ratelimit-*` headers): passthrough does not depend on Redis.
 *
 * @example
 * const limiter = createTenantLimiter({ redis, sessions, defaults, logger });
 * await limiter.admit({ tenant, route: 'chat', res });
 */
export function createTenantLimiter({
  redis,
  sessions,
  defaults,
  tenants = {},
  windowSeconds = 60,
  syncIntervalMs = 1000,
  runRetryAfterSeconds = 5,
  runLeaseMs = 30_000,
  keyPrefix = 'fleet:limits',
  logger,
  onLimited = () => undefined,
  now = Date.now,
}: TenantLimiterOptions): TenantLimiter {
  const resolved = new Map<string, TenantLimits>();
  let lastWarning = -Infinity;
  const context: LimiterContext = {
    limitsOf(tenant) {
      let limits = resolved.get(tenant);
      if (limits === undefined) {
        limits = withOverrides(defaults, tenants[tenant]);
        resolved.set(tenant, limits);
      }
      return limits;
    },
    redis,
    requests: createRequestCounter({
      redis,
      keyPrefix,
      windowMs: windowSeconds * 1000,
      syncIntervalMs,
      now,
    }),
    tokens: createTokenCounter({ redis, keyPrefix, now }),
    slots: createRunSlots({
      redis,
      keyPrefix,
      leaseMs: runLeaseMs,
      onRenewFailure: (error) => logger.warn({ err: error }, 'run slot renewal failed'),
    }),
    sessions,
    windowSeconds,
    runRetryAfterSeconds,
    logger,
    refuse(tenant, limit, error) {
      onLimited(tenant, limit);
      throw error;
    },
    warnUnchecked(error, what) {
      const time = now();
      if (time - lastWarning < WARN_INTERVAL_MS) return;
      lastWarning = time;
      logger.warn({ err: error }, `${what}: Redis failed; requests are let through meanwhile`);
    },
  };
  const sync = async (): Promise<void> => {
    await Promise.all([context.requests.sync(), context.tokens.sync()]);
  };
  // One timer per limiter; unref'd, so it never keeps a process alive.
  const timer = setInterval(() => {
    sync().catch((error: unknown) => context.warnUnchecked(error, 'limit counts not synced'));
  }, syncIntervalMs);
  timer.unref();
  return {
    limitsOf: context.limitsOf,
    admit: (request) => admit(context, request),
    acquireRun: (request) => acquireRun(context, request),
    recordTokens: (tenant, tokens) => recordTokens(context, { tenant, tokens }),
    sync,
  };
}

/** Logged while Redis is not connected: nothing is checked, requests are let through. */
const REDIS_NOT_READY = new Error('Redis is not connected');

/** Counts the request; the bucket's state, or undefined when Redis failed (let through). */
async function countRequest(
  context: LimiterContext,
  { tenant, route, points }: { tenant: string; route: LimitedRoute; points: number },
): Promise<CountedRequest | undefined> {
  if (context.redis.status !== 'ready') {
    context.warnUnchecked(REDIS_NOT_READY, 'request limits not checked');
    return undefined;
  }
  try {
    return await context.requests.count(tenant, route, points);
  } catch (error) {
    context.warnUnchecked(error, 'request limits not checked');
    return undefined;
  }
}

/** The day's token state, or undefined when Redis failed (let through). */
async function readBudget(
  context: LimiterContext,
  { tenant, budget }: { tenant: string; budget: number },
): Promise<LimitState | undefined> {
  if (context.redis.status !== 'ready') {
    context.warnUnchecked(REDIS_NOT_READY, 'token budgets not checked');
    return undefined;
  }
  try {
    const { spent, resetMs } = await context.tokens.spent(tenant);
    return { limit: budget, remaining: budget - spent, resetMs };
  } catch (error) {
    context.warnUnchecked(error, 'token budgets not checked');
    return undefined;
  }
}

/** {@link TenantLimiter.admit}. */
async function admit(
  context: LimiterContext,
  { tenant, route, res, budget = true }: Parameters<TenantLimiter['admit']>[0],
): Promise<Admission> {
  const { rpm, tokens_per_day: perDay } = context.limitsOf(tenant);
  const budgeted = budget && route !== 'api' && perDay !== null;
  // From memory far from the limits; when both need Redis, they ask together.
  const [requests, tokens] = await Promise.all([
    rpm === null ? undefined : countRequest(context, { tenant, route, points: rpm }),
    budgeted && perDay !== null ? readBudget(context, { tenant, budget: perDay }) : undefined,
  ]);
  if (requests !== undefined) setRateLimitHeaders(res, { kind: 'requests', state: requests.state });
  if (tokens !== undefined) setRateLimitHeaders(res, { kind: 'tokens', state: tokens });
  if (requests?.limited === true) {
    const { limit, resetMs } = requests.state;
    const retryAfterSeconds = setRetryAfterMs(res, resetMs);
    context.refuse(
      tenant,
      'requests',
      new RateLimitError(
        `Rate limit reached for ${ROUTE_NAMES[route]}: ${limit} requests per ${context.windowSeconds} s for this tenant. Try again in ${retryAfterSeconds} s.`,
        { limitCode: 'rate_limit_exceeded', retryAfterSeconds },
      ),
    );
  }
  if (tokens !== undefined && tokens.remaining <= 0) {
    const retryAfterSeconds = setRetryAfterMs(res, tokens.resetMs);
    context.refuse(
      tenant,
      'tokens',
      new RateLimitError(
        `This tenant's ${tokens.limit} tokens for today are spent; the budget starts over at 00:00 UTC.`,
        { limitCode: 'tokens_per_day_exceeded', retryAfterSeconds },
      ),
    );
  }
  return { countsTokens: budgeted };
}

/** {@link TenantLimiter.acquireRun}. */
async function acquireRun(
  context: LimiterContext,
  { tenant, res }: Parameters<TenantLimiter['acquireRun']>[0],
): Promise<RunSlot> {
  const { runs, waiting } = context.limitsOf(tenant);
  if (runs === null && waiting === null) return NO_SLOT;
  const [waitingNow, slot] = await Promise.all([
    waiting === null ? 0 : context.sessions.countAwaitingApprovalForTenant(tenant, waiting),
    runs === null ? NO_SLOT : context.slots.acquire(tenant, runs),
  ]);
  const refuseRun = (limit: LimitName, message: string): never => {
    slot?.release();
    const retryAfterSeconds = setRetryAfterMs(res, context.runRetryAfterSeconds * 1000);
    return context.refuse(
      tenant,
      limit,
      new RateLimitError(message, { limitCode: 'concurrency_limit_exceeded', retryAfterSeconds }),
    );
  };
  if (waiting !== null && waitingNow >= waiting) {
    refuseRun(
      'waiting',
      `This tenant already has ${waitingNow} orchestrated runs waiting for a person (approvals or questions), its limit; decide or cancel some before starting new ones.`,
    );
  }
  if (slot === undefined) {
    return refuseRun(
      'runs',
      `This tenant already has ${runs} orchestrated runs answering, its limit of concurrent runs. Try again when one has finished.`,
    );
  }
  return slot;
}

/** {@link TenantLimiter.recordTokens}. */
function recordTokens(
  context: LimiterContext,
  { tenant, tokens }: { tenant: string; tokens: number | undefined },
): void {
  if (tokens === undefined || tokens <= 0 || context.limitsOf(tenant).tokens_per_day === null) {
    return;
  }
  context.tokens.add(tenant, Math.round(tokens));
}

/** The defaults with the limits a tenant overrides. */
function withOverrides(
  defaults: TenantLimits,
  overrides: TenantLimitOverrides | undefined,
): TenantLimits {
  const limits = { ...defaults };
  for (const name of Object.keys(limits) as (keyof TenantLimits)[]) {
    const value = overrides?.[name];
    if (value !== undefined) limits[name] = value;
  }
  return limits;
}
