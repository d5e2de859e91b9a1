/** A set of numeric user ids lent to concurrent runs, one each. */
export interface UidPool {
  /** A free uid, or undefined when every uid is in use. */
  acquire(): number | undefined;
  release(uid: number): void;
}

/**
 * Lends `size` user ids from `first` on. Each concurrent run gets its own uid, so one run's
 * processes never count against another's process limit (RLIMIT_NPROC counts per user).
 *
 * @example
 * const pool = createUidPool({ first: 61000, size: 4 });
 */
export function createUidPool({ first, size }: { first: number; size: number }): UidPool {
  const inUse = new Set<number>();
  return {
    acquire() {
      for (let uid = first; uid < first + size; uid += 1) {
        if (!inUse.has(uid)) {
          inUse.add(uid);
          return uid;
        }
      }
      return undefined;
    },
    release(uid) {
      inUse.delete(uid);
    },
  };
}
