import { hash, timingSafeEqual } from 'node:crypto';

/** An accepted key and the tenant it belongs to. */
export interface ApiKeyEntry {
  key: string;
  tenant: string;
}

/** Looks up the tenant of a presented API key without leaking timing about the stored keys. */
export interface ApiKeyRing {
  /** The key's tenant, or undefined when no key matches. */
  tenantOf(presentedKey: string): string | undefined;
}

function digest(value: string): Buffer {
  // One-shot hashing: no Hash object per request (this runs on every gateway call).
  return hash('sha256', value, 'buffer');
}

/**
 * Builds a key ring from configuration. Keys are kept only as SHA-256 digests; a lookup compares the
 * presented key's digest with every stored digest in constant time and never stops early, so
 * neither a key's content nor its position shows in the response time (docs/architecture.md §10).
 */
export function createApiKeyRing(entries: readonly ApiKeyEntry[]): ApiKeyRing {
  const stored = entries.map((entry) => ({ digest: digest(entry.key), tenant: entry.tenant }));
  return {
    tenantOf(presentedKey) {
      const presented = digest(presentedKey);
      let tenant: string | undefined;
      for (const entry of stored) {
        if (timingSafeEqual(presented, entry.digest) && tenant === undefined) tenant = entry.tenant;
      }
      return tenant;
    },
  };
}
