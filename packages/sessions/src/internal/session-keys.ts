/** The default {@link SessionStoreOptions.keyPrefix}. */
export const DEFAULT_KEY_PREFIX = 'fleet';

/**
 * The Redis names of the session store, laid out for Redis Cluster: every key one script touches
 * shares a hash tag (the part in braces, which alone decides a key's slot), so no script spans
 * slots.
 *
 * - Per session, tagged with its id: `${prefix}:{id}:session` (the JSON), `${prefix}:{id}:lock`
 *   (its Redlock lock), `${prefix}:{id}:lease:runner` and `${prefix}:{id}:lease:attach` (its
 *   leases), and the pub/sub channel `${prefix}:{id}:events`.
 * - Per tenant, tagged `tenant:<tenant>`: `${prefix}:{tenant:<tenant>}:sessions` (sorted set of
 *   the tenant's session ids by creation time) and `${prefix}:{tenant:<tenant>}:pending-approvals`
 *   (set of its session ids with an approval or a question pending).
 * - Fleet-wide, tagged `sessions` (one slot of their own): `${prefix}:{sessions}:pending-approvals`
 *   (hash of session id → tenant, for the expiry sweep) and `${prefix}:{sessions}:active` (set of
 *   the ids of sessions still running or waiting, for restart recovery).
 *
 * The suffixes of per-session keys (`session`, `lock`, `lease:…`) differ from those of the index
 * keys (`sessions`, `pending-approvals`, `active`), so a session whose id looks like a tag of the
 * indexes (`tenant:acme`, `sessions`) shares their slot but never their keys.
 */
export interface SessionKeys {
  readonly prefix: string;
  session(id: string): string;
  lock(id: string): string;
  lease(kind: 'runner' | 'attach', id: string): string;
  /** The session's pub/sub channel. */
  events(id: string): string;
  /** A glob matching every session's channel (for `PSUBSCRIBE`). */
  eventsPattern(): string;
  /** A glob matching every session's JSON key (for `SCAN`; the store itself never scans). */
  sessionPattern(): string;
  tenantIndex(tenant: string): string;
  tenantPending(tenant: string): string;
  pending(): string;
  active(): string;
}

/**
 * The names under `keyPrefix`. The prefix may not hold braces: a hash tag in it would put every
 * key in one slot (or make the slot depend on the prefix instead of the id).
 */
export function sessionKeys(keyPrefix: string = DEFAULT_KEY_PREFIX): SessionKeys {
  if (/[{}]/.test(keyPrefix)) {
    throw new RangeError(
      `keyPrefix must not contain "{" or "}", not ${JSON.stringify(keyPrefix)}.`,
    );
  }
  const globPrefix = keyPrefix.replace(/[*?[\]\\]/g, '\\$&');
  return {
    prefix: keyPrefix,
    session: (id) => `${keyPrefix}:{${id}}:session`,
    lock: (id) => `${keyPrefix}:{${id}}:lock`,
    lease: (kind, id) => `${keyPrefix}:{${id}}:lease:${kind}`,
    events: (id) => `${keyPrefix}:{${id}}:events`,
    eventsPattern: () => `${globPrefix}:{*}:events`,
    sessionPattern: () => `${globPrefix}:{*}:session`,
    tenantIndex: (tenant) => `${keyPrefix}:{tenant:${tenant}}:sessions`,
    tenantPending: (tenant) => `${keyPrefix}:{tenant:${tenant}}:pending-approvals`,
    pending: () => `${keyPrefix}:{sessions}:pending-approvals`,
    active: () => `${keyPrefix}:{sessions}:active`,
  };
}
