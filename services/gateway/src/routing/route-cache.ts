/** Options for {@link createRouteCache}. */
export interface RouteCacheOptions {
  /** Most entries kept; the least recently used goes first. 0 turns the cache off. */
  maxEntries: number;
  /** How long an entry is served after it was stored, in milliseconds. */
  ttlMs: number;
  /** The clock, in milliseconds. @default Date.now */
  now?: () => number;
}

/** A bounded map with least-recently-used eviction and a time to live per entry. */
export interface RouteCache<T> {
  /** The value stored under `key` if it has not expired (and marks it recently used). */
  get(key: string): T | undefined;
  set(key: string, value: T): void;
  /** Entries currently held (expired ones included until they are touched or evicted). */
  readonly size: number;
  clear(): void;
}

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/**
 * Builds the in-process cache `auto` routing keeps its classifier decisions in. A `Map` keeps
 * insertion order, so re-inserting on every hit makes its first key the least recently used one.
 * Keys carry everything that must not be shared (the tenant first of all); the cache itself
 * knows nothing about tenants.
 *
 * @example
 * const cache = createRouteCache<string>({ maxEntries: 10_000, ttlMs: 600_000 });
 * cache.set('acme:abc', 'orchestration');
 * cache.get('acme:abc'); // 'orchestration'
 */
export function createRouteCache<T>({
  maxEntries,
  ttlMs,
  now = Date.now,
}: RouteCacheOptions): RouteCache<T> {
  const entries = new Map<string, Entry<T>>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      if (entry.expiresAt <= now()) return undefined;
      entries.set(key, entry);
      return entry.value;
    },
    set(key, value) {
      if (maxEntries <= 0 || ttlMs <= 0) return;
      entries.delete(key);
      entries.set(key, { value, expiresAt: now() + ttlMs });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done === true) break;
        entries.delete(oldest.value);
      }
    },
    get size() {
      return entries.size;
    },
    clear() {
      entries.clear();
    },
  };
}
