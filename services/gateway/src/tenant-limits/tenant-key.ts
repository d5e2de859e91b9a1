/**
 * The Redis key of one of a tenant's limit counters: `<keyPrefix>:{tenant:<tenant>}:<parts…>`.
 * Every key of a tenant carries the hash tag `{tenant:<tenant>}`, so on a Redis Cluster they share
 * one slot (a script may touch several of one tenant's keys, never another tenant's).
 *
 * @example
 * tenantKey('fleet:limits', 'acme', 'requests', 'chat'); // 'fleet:limits:{tenant:acme}:requests:chat'
 */
export function tenantKey(keyPrefix: string, tenant: string, ...parts: string[]): string {
  if (/[{}]/.test(keyPrefix)) {
    throw new Error(`A limits keyPrefix cannot contain "{" or "}" (got "${keyPrefix}")`);
  }
  return [`${keyPrefix}:{tenant:${tenant}}`, ...parts].join(':');
}
