import { randomUUID } from 'node:crypto';

/** How many 2025-era client connections the gateway remembers the capabilities of. */
export const MAX_LEGACY_CLIENTS = 10_000;

/** How long a 2025-era client connection's capabilities are remembered after its `initialize`. */
export const LEGACY_CLIENT_TTL_MS = 24 * 60 * 60 * 1000;

/** What a 2025-era client declared in `initialize` that the gateway acts on. */
export interface LegacyClient {
  tenant: string;
  /** It declared `elicitation` (form mode: `{}` or `{ form }`). */
  elicitation: boolean;
  expiresAt: number;
}

/** A JSON-RPC message the gateway routes to a call in flight instead of the SDK. */
export type RoutedMessage =
  | { kind: 'response'; id: string; message: Record<string, unknown> }
  | { kind: 'cancelled'; requestId: string | number };

/** An answer being waited for: registered, so that a POST of it is routed to this call. */
export interface PendingResponse {
  /** The JSON-RPC response; rejects when the wait's `signal` aborts. */
  answer: Promise<Record<string, unknown>>;
}

/**
 * What the 2025-11-25 serving needs beyond the SDK's per-request (stateless) instances: which
 * connection declared `elicitation` (the connection is named by the `Mcp-Session-Id` the gateway
 * hands out at `initialize`), the answers to the elicitations a call in flight sent (they come
 * back as a POST of their own), and `notifications/cancelled` for a call in flight (also a POST
 * of its own). In this process ({@link createLegacyExchanges}) or shared by every replica through
 * Redis (`createRedisLegacyExchanges`).
 */
export interface LegacyExchanges {
  /** Remembers an `initialize`'s capabilities; resolves to the connection id to hand out. */
  initialized(tenant: string, capabilities: unknown): Promise<string>;
  /** What the connection declared, if it is this tenant's and still remembered. */
  client(tenant: string, connectionId: string | undefined): Promise<LegacyClient | undefined>;
  /**
   * Registers the wait for the answer to the server-to-client request `id` (sent by the caller
   * once this resolves: from then on a POST of the answer reaches the wait), until `signal`
   * aborts, which also ends the registration.
   */
  awaitResponse(tenant: string, id: string, signal: AbortSignal): Promise<PendingResponse>;
  /**
   * Calls `cancel` when the connection sends `notifications/cancelled` for `requestId`; resolves,
   * once listening, to the function that stops listening.
   */
  onCancel(
    call: { tenant: string; connectionId: string; requestId: string | number },
    cancel: () => void,
  ): Promise<() => void>;
  /** Hands a POSTed message to the call waiting for it; false when none waits for it. */
  route(tenant: string, connectionId: string | undefined, message: unknown): Promise<boolean>;
  /** Stops listening for every call (the gateway shuts down). */
  close(): Promise<void>;
}

/** Reads a POSTed JSON-RPC message as one the gateway may route. */
export function routable(message: unknown): RoutedMessage | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const record = message as Record<string, unknown>;
  if (record['method'] === 'notifications/cancelled') {
    const params = record['params'] as { requestId?: unknown } | undefined;
    const requestId = params?.requestId;
    if (typeof requestId === 'string' || typeof requestId === 'number') {
      return { kind: 'cancelled', requestId };
    }
    return undefined;
  }
  if (record['method'] === undefined && typeof record['id'] === 'string') {
    if ('result' in record || 'error' in record) {
      return { kind: 'response', id: record['id'], message: record };
    }
  }
  return undefined;
}

/** Whether `initialize`'s capabilities declare form elicitation. */
export function declaresFormElicitation(capabilities: unknown): boolean {
  const elicitation = (capabilities as { elicitation?: unknown } | undefined)?.elicitation;
  if (elicitation === null || typeof elicitation !== 'object') return false;
  const modes = elicitation as { form?: unknown; url?: unknown };
  // A bare `{}` is form support (the rule before modes existed).
  return modes.form !== undefined || modes.url === undefined;
}

/**
 * The registry in this process: right for one gateway (and tests); with several replicas behind a
 * load balancer, use `createRedisLegacyExchanges`.
 */
export function createLegacyExchanges({
  maxClients = MAX_LEGACY_CLIENTS,
  ttlMs = LEGACY_CLIENT_TTL_MS,
  now = Date.now,
}: { maxClients?: number; ttlMs?: number; now?: () => number } = {}): LegacyExchanges {
  const clients = new Map<string, LegacyClient>();
  const waiting = new Map<string, (message: Record<string, unknown>) => void>();
  const cancels = new Map<string, () => void>();
  const cancelKey = (tenant: string, connectionId: string, requestId: string | number): string =>
    JSON.stringify([tenant, connectionId, requestId]);

  return {
    initialized(tenant, capabilities) {
      const id = `fleet-${randomUUID()}`;
      // Oldest first: a full map forgets its oldest connection.
      while (clients.size >= maxClients) {
        const oldest = clients.keys().next().value;
        if (oldest === undefined) break;
        clients.delete(oldest);
      }
      clients.set(id, {
        tenant,
        elicitation: declaresFormElicitation(capabilities),
        expiresAt: now() + ttlMs,
      });
      return Promise.resolve(id);
    },
    client(tenant, connectionId) {
      if (connectionId === undefined) return Promise.resolve(undefined);
      const found = clients.get(connectionId);
      if (found === undefined || found.tenant !== tenant) return Promise.resolve(undefined);
      if (found.expiresAt <= now()) {
        clients.delete(connectionId);
        return Promise.resolve(undefined);
      }
      return Promise.resolve(found);
    },
    awaitResponse(tenant, id, signal) {
      const key = JSON.stringify([tenant, id]);
      const answer = new Promise<Record<string, unknown>>((resolve, reject) => {
        const onAbort = (): void => {
          if (waiting.get(key) === deliver) waiting.delete(key);
          reject(abortReason(signal));
        };
        const deliver = (message: Record<string, unknown>): void => {
          signal.removeEventListener('abort', onAbort);
          waiting.delete(key);
          resolve(message);
        };
        if (signal.aborted) {
          onAbort();
          return;
        }
        signal.addEventListener('abort', onAbort, { once: true });
        waiting.set(key, deliver);
      });
      // Read by the caller after it sent the request; an abort before then is not unhandled.
      answer.catch(() => undefined);
      return Promise.resolve({ answer });
    },
    onCancel({ tenant, connectionId, requestId }, cancel) {
      const key = cancelKey(tenant, connectionId, requestId);
      cancels.set(key, cancel);
      return Promise.resolve(() => {
        if (cancels.get(key) === cancel) cancels.delete(key);
      });
    },
    route(tenant, connectionId, message) {
      const found = routable(message);
      if (found === undefined) return Promise.resolve(false);
      if (found.kind === 'response') {
        const resolve = waiting.get(JSON.stringify([tenant, found.id]));
        if (resolve === undefined) return Promise.resolve(false);
        resolve(found.message);
        return Promise.resolve(true);
      }
      if (connectionId === undefined) return Promise.resolve(false);
      const cancel = cancels.get(cancelKey(tenant, connectionId, found.requestId));
      if (cancel === undefined) return Promise.resolve(false);
      cancel();
      return Promise.resolve(true);
    },
    close() {
      waiting.clear();
      cancels.clear();
      return Promise.resolve();
    },
  };
}

/** Why a wait ended: its signal's reason, as an error. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
