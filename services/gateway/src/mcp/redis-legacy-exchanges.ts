import { randomUUID } from 'node:crypto';
import type { FleetRedis } from '@fleet/a2a/server';
import { ServiceUnavailableError } from '@fleet/errors';
import {
  abortReason,
  declaresFormElicitation,
  LEGACY_CLIENT_TTL_MS,
  routable,
  type LegacyClient,
  type LegacyExchanges,
  type PendingResponse,
} from './legacy-exchanges';

/**
 * How long a wait's key (an elicitation's answer, a call's cancel) lives without being renewed:
 * the replica holding the call renews it every third of this while the call waits, so the key of
 * a replica that died ends within this.
 */
export const LEGACY_HOLD_TTL_MS = 60_000;

/** How many waits (answers and cancels of calls in flight) one gateway holds at most. */
export const MAX_LEGACY_WAITS = 10_000;

/** How many connections' capabilities a replica keeps in memory besides Redis. */
export const LEGACY_CLIENT_CACHE_SIZE = 1000;

/**
 * The Redis keys and channel, each key's `{hash tag}` putting it in one slot: a connection's
 * capabilities and its calls' cancels share the connection's slot.
 */
export const legacyExchangeKeys = {
  /** What connection `id` declared at `initialize`: `{ tenant, elicitation }`, 24 h. */
  client: (id: string): string => `fleet:mcp:{conn:${id}}:client`,
  /** Who waits for the `notifications/cancelled` of call `requestId`: `{ replica, token }`. */
  cancel: (connectionId: string, tenant: string, requestId: string | number): string =>
    `fleet:mcp:{conn:${connectionId}}:cancel:${JSON.stringify([tenant, requestId])}`,
  /** Who waits for the answer to the elicitation `id`: `{ replica, token }`. */
  response: (tenant: string, id: string): string =>
    `fleet:mcp:{elicit:${id}}:waiter:${JSON.stringify(tenant)}`,
  /** Where a replica hears the answers and cancels routed to it (classic pub/sub). */
  channel: (replica: string): string => `fleet:mcp:replica:${replica}`,
};

/** Deletes a wait's key only while it is still this wait's (a later one may have replaced it). */
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** What a wait's key holds: the replica holding the call, and the wait there. */
interface Holder {
  replica: string;
  token: string;
}

/** What is routed to a wait: the answer, or (without one) the cancel. */
interface Note {
  token: string;
  message?: Record<string, unknown>;
}

/** One wait this replica holds. */
interface Held {
  key: string;
  onNote: (note: Note) => void;
}

/** What a wait does with a note routed to it; `release` ends the wait. */
type NoteHandler = (note: Note, release: () => Promise<void>) => void;

/** Options for {@link createRedisLegacyExchanges}. */
export interface RedisLegacyExchangesOptions {
  /** The gateway's connection; subscribing uses a duplicate of it. */
  redis: FleetRedis;
  /** Renewal failures are logged here. */
  logger?: { warn: (fields: object, message: string) => void } | undefined;
  /** @default {@link LEGACY_CLIENT_TTL_MS} */
  clientTtlMs?: number;
  /** @default {@link LEGACY_HOLD_TTL_MS} */
  holdTtlMs?: number;
  /** @default {@link MAX_LEGACY_WAITS} */
  maxWaits?: number;
  /** @default {@link LEGACY_CLIENT_CACHE_SIZE} */
  cacheSize?: number;
}

function parseJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function parseHolder(text: string | null): Holder | undefined {
  const value = parseJson(text) as Partial<Holder> | undefined;
  return typeof value?.replica === 'string' && typeof value.token === 'string'
    ? { replica: value.replica, token: value.token }
    : undefined;
}

/**
 * The 2025-11-25 exchanges shared by every gateway replica through Redis, so that a client behind a
 * load balancer without sticky sessions may send each request to any replica:
 *
 * - a connection's capabilities: one key per connection (`fleet:mcp:{conn:<id>}:client`, the
 *   connection's TTL), its tenant checked on every read; a replica keeps the last ones it read
 *   in a small cache (they never change);
 * - a wait (the answer to an elicitation, the cancel of a call): a key naming the replica that
 *   holds the call and the wait there, renewed while the call waits (`holdTtlMs`), deleted when
 *   the wait ends. The replica the client's POST reaches reads the key (an answer's atomically
 *   with deleting it: a second POST of the same answer finds none and goes to the SDK), answers
 *   202 and publishes the message on the holding replica's channel; each replica subscribes to
 *   its own channel once, on a duplicate connection (classic `SUBSCRIBE`, which works on a
 *   Cluster too).
 *
 * Keys carry the tenant (or the caller's tenant is compared), so another tenant's POST cannot
 * answer or cancel a call: it finds no wait and goes to the SDK.
 */
class RedisLegacyExchanges implements LegacyExchanges {
  private readonly replica = randomUUID();
  private readonly held = new Map<string, Held>();
  private readonly cache = new Map<string, LegacyClient>();
  private subscriber: FleetRedis | undefined;
  private listening: Promise<void> | undefined;
  private renewing: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly options: Required<Omit<RedisLegacyExchangesOptions, 'logger'>> & {
      logger: RedisLegacyExchangesOptions['logger'];
    },
  ) {}

  async initialized(tenant: string, capabilities: unknown): Promise<string> {
    const id = `fleet-${randomUUID()}`;
    const elicitation = declaresFormElicitation(capabilities);
    const { redis, clientTtlMs } = this.options;
    await redis.set(
      legacyExchangeKeys.client(id),
      JSON.stringify({ tenant, elicitation }),
      'PX',
      clientTtlMs,
    );
    this.remember(id, { tenant, elicitation, expiresAt: Date.now() + clientTtlMs });
    return id;
  }

  async client(
    tenant: string,
    connectionId: string | undefined,
  ): Promise<LegacyClient | undefined> {
    if (connectionId === undefined) return undefined;
    let found = this.cache.get(connectionId);
    if (found !== undefined && found.expiresAt <= Date.now()) {
      this.cache.delete(connectionId);
      found = undefined;
    }
    if (found === undefined) {
      const key = legacyExchangeKeys.client(connectionId);
      const [text, ttl] = await Promise.all([
        this.options.redis.get(key),
        this.options.redis.pttl(key),
      ]);
      const value = parseJson(text) as { tenant?: unknown; elicitation?: unknown } | undefined;
      if (typeof value?.tenant !== 'string' || ttl <= 0) return undefined;
      found = {
        tenant: value.tenant,
        elicitation: value.elicitation === true,
        expiresAt: Date.now() + ttl,
      };
      this.remember(connectionId, found);
    }
    return found.tenant === tenant ? found : undefined;
  }

  async awaitResponse(tenant: string, id: string, signal: AbortSignal): Promise<PendingResponse> {
    let settle!: {
      resolve: (message: Record<string, unknown>) => void;
      reject: (e: Error) => void;
    };
    const answer = new Promise<Record<string, unknown>>((resolve, reject) => {
      settle = { resolve, reject };
    });
    // Read by the caller after it sent the request; an abort before then is not unhandled.
    answer.catch(() => undefined);
    if (signal.aborted) {
      settle.reject(abortReason(signal));
      return { answer };
    }
    const onAbort = (): void => {
      void release();
      settle.reject(abortReason(signal));
    };
    const release = await this.hold(legacyExchangeKeys.response(tenant, id), (note, end) => {
      if (note.message === undefined) return;
      signal.removeEventListener('abort', onAbort);
      void end();
      settle.resolve(note.message);
    });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    return { answer };
  }

  async onCancel(
    {
      tenant,
      connectionId,
      requestId,
    }: { tenant: string; connectionId: string; requestId: string | number },
    cancel: () => void,
  ): Promise<() => void> {
    const release = await this.hold(
      legacyExchangeKeys.cancel(connectionId, tenant, requestId),
      () => cancel(),
    );
    return () => void release();
  }

  async route(
    tenant: string,
    connectionId: string | undefined,
    message: unknown,
  ): Promise<boolean> {
    const found = routable(message);
    if (found === undefined) return false;
    const { redis } = this.options;
    let holder: Holder | undefined;
    let note: Omit<Note, 'token'> = {};
    if (found.kind === 'response') {
      // Taken: the same answer POSTed again finds no wait.
      holder = parseHolder(await redis.getdel(legacyExchangeKeys.response(tenant, found.id)));
      note = { message: found.message };
    } else if (connectionId !== undefined) {
      holder = parseHolder(
        await redis.get(legacyExchangeKeys.cancel(connectionId, tenant, found.requestId)),
      );
    }
    if (holder === undefined) return false;
    const routed: Note = { ...note, token: holder.token };
    if (holder.replica === this.replica) this.deliver(routed);
    else await redis.publish(legacyExchangeKeys.channel(holder.replica), JSON.stringify(routed));
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.held.clear();
    this.cache.clear();
    this.stopRenewing();
    this.listening = undefined;
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber !== undefined) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  /**
   * Registers a wait under `key` (its note handed to `onNote`), once this replica hears its
   * channel; resolves to what ends the wait.
   */
  private async hold(key: string, onNote: NoteHandler): Promise<() => Promise<void>> {
    if (this.held.size >= this.options.maxWaits) {
      throw new ServiceUnavailableError('Too many MCP calls are waiting on this gateway.', {
        retryable: true,
      });
    }
    await this.listen();
    const token = randomUUID();
    const value = JSON.stringify({ replica: this.replica, token } satisfies Holder);
    const { redis, holdTtlMs } = this.options;
    let released = false;
    const release = async (): Promise<void> => {
      if (released) return;
      released = true;
      this.held.delete(token);
      if (this.held.size === 0) this.stopRenewing();
      // Best effort: a key left behind ends with its TTL, and a note to it finds no wait.
      await redis.eval(RELEASE_SCRIPT, 1, key, value).catch(() => undefined);
    };
    this.held.set(token, { key, onNote: (note) => onNote(note, release) });
    this.startRenewing();
    try {
      await redis.set(key, value, 'PX', holdTtlMs);
    } catch (error) {
      await release();
      throw error;
    }
    return release;
  }

  /** Subscribes to this replica's channel, once. */
  private listen(): Promise<void> {
    if (this.closed) {
      return Promise.reject(new ServiceUnavailableError('The gateway is shutting down.'));
    }
    this.listening ??= this.subscriberConnection()
      .subscribe(legacyExchangeKeys.channel(this.replica))
      .then(
        () => undefined,
        (error: unknown) => {
          this.listening = undefined;
          throw error;
        },
      );
    return this.listening;
  }

  private subscriberConnection(): FleetRedis {
    if (this.subscriber !== undefined) return this.subscriber;
    const subscriber = this.options.redis.duplicate();
    subscriber.on('message', (_channel: string, text: string) => {
      const note = parseJson(text) as Note | undefined;
      if (typeof note?.token === 'string') this.deliver(note);
    });
    // Errors surface on the commands; without a listener ioredis would log them as unhandled.
    subscriber.on('error', () => undefined);
    this.subscriber = subscriber;
    return subscriber;
  }

  private deliver(note: Note): void {
    this.held.get(note.token)?.onNote(note);
  }

  private remember(id: string, client: LegacyClient): void {
    this.cache.delete(id);
    while (this.cache.size >= this.options.cacheSize) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
    this.cache.set(id, client);
  }

  /** Renews the keys of the waits held, every third of their TTL, while there are any. */
  private startRenewing(): void {
    if (this.renewing !== undefined) return;
    const { redis, holdTtlMs, logger } = this.options;
    this.renewing = setInterval(
      () => {
        const keys = [...this.held.values()].map((held) => held.key);
        void Promise.all(keys.map((key) => redis.pexpire(key, holdTtlMs))).catch((error: unknown) =>
          logger?.warn({ err: error }, 'Renewing the MCP waits in Redis failed'),
        );
      },
      Math.max(10, Math.floor(holdTtlMs / 3)),
    );
    this.renewing.unref();
  }

  private stopRenewing(): void {
    if (this.renewing === undefined) return;
    clearInterval(this.renewing);
    this.renewing = undefined;
  }
}

/**
 * The 2025-11-25 exchanges of a gateway with replicas, in `redis` (see {@link RedisLegacyExchanges}
 * for what is kept there): any replica may serve any request of a connection.
 *
 * @example
 * const legacy = createRedisLegacyExchanges({ redis, logger });
 * mcpRouter({ ...options, legacy });
 * // at shutdown
 * await legacy.close();
 */
export function createRedisLegacyExchanges({
  redis,
  logger,
  clientTtlMs = LEGACY_CLIENT_TTL_MS,
  holdTtlMs = LEGACY_HOLD_TTL_MS,
  maxWaits = MAX_LEGACY_WAITS,
  cacheSize = LEGACY_CLIENT_CACHE_SIZE,
}: RedisLegacyExchangesOptions): LegacyExchanges {
  return new RedisLegacyExchanges({ redis, logger, clientTtlMs, holdTtlMs, maxWaits, cacheSize });
}
