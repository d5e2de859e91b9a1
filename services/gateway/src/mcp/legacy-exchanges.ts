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

/**
 * What the 2025-11-25 serving needs beyond the SDK's per-request (stateless) instances, in this
 * gateway process: which connection declared `elicitation` (the connection is named by the
 * `Mcp-Session-Id` the gateway hands out at `initialize`), the answers to the elicitations a call
 * in flight sent (they come back as a POST of their own), and `notifications/cancelled` for a
 * call in flight (also a POST of its own).
 */
export interface LegacyExchanges {
  /** Remembers an `initialize`'s capabilities; returns the connection id to hand out. */
  initialized(tenant: string, capabilities: unknown): string;
  /** What the connection declared, if it is this tenant's and still remembered. */
  client(tenant: string, connectionId: string | undefined): LegacyClient | undefined;
  /**
   * Waits for the answer to the server-to-client request `id` (sent by the caller), until
   * `signal` aborts.
   */
  awaitResponse(tenant: string, id: string, signal: AbortSignal): Promise<Record<string, unknown>>;
  /**
   * Calls `cancel` when the connection sends `notifications/cancelled` for `requestId`; returns
   * the function that stops listening.
   */
  onCancel(
    call: { tenant: string; connectionId: string; requestId: string | number },
    cancel: () => void,
  ): () => void;
  /** Hands a POSTed message to the call waiting for it; false when none waits for it. */
  route(tenant: string, connectionId: string | undefined, message: unknown): boolean;
}

/** Reads a POSTed JSON-RPC message as one the gateway may route. */
function routable(message: unknown): RoutedMessage | undefined {
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
function declaresFormElicitation(capabilities: unknown): boolean {
  const elicitation = (capabilities as { elicitation?: unknown } | undefined)?.elicitation;
  if (elicitation === null || typeof elicitation !== 'object') return false;
  const modes = elicitation as { form?: unknown; url?: unknown };
  // A bare `{}` is form support (the rule before modes existed).
  return modes.form !== undefined || modes.url === undefined;
}

/** Creates the registry for one gateway process. */
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
      return id;
    },
    client(tenant, connectionId) {
      if (connectionId === undefined) return undefined;
      const found = clients.get(connectionId);
      if (found === undefined || found.tenant !== tenant) return undefined;
      if (found.expiresAt <= now()) {
        clients.delete(connectionId);
        return undefined;
      }
      return found;
    },
    awaitResponse(tenant, id, signal) {
      const key = JSON.stringify([tenant, id]);
      return new Promise((resolve, reject) => {
        const onAbort = (): void => {
          waiting.delete(key);
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        };
        if (signal.aborted) {
          onAbort();
          return;
        }
        signal.addEventListener('abort', onAbort, { once: true });
        waiting.set(key, (message) => {
          signal.removeEventListener('abort', onAbort);
          waiting.delete(key);
          resolve(message);
        });
      });
    },
    onCancel({ tenant, connectionId, requestId }, cancel) {
      const key = cancelKey(tenant, connectionId, requestId);
      cancels.set(key, cancel);
      return () => {
        if (cancels.get(key) === cancel) cancels.delete(key);
      };
    },
    route(tenant, connectionId, message) {
      const found = routable(message);
      if (found === undefined) return false;
      if (found.kind === 'response') {
        const resolve = waiting.get(JSON.stringify([tenant, found.id]));
        if (resolve === undefined) return false;
        resolve(found.message);
        return true;
      }
      if (connectionId === undefined) return false;
      const cancel = cancels.get(cancelKey(tenant, connectionId, found.requestId));
      if (cancel === undefined) return false;
      cancel();
      return true;
    },
  };
}
