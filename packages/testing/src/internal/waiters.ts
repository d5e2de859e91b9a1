interface Waiter {
  check: () => boolean;
  reject: (error: Error) => void;
}

/**
 * Promises that resolve once a condition over some shared state holds; `notify()` after every
 * change re-checks them. Used by the servers' `waitFor*` methods.
 */
export class Waiters {
  readonly #waiters = new Set<Waiter>();

  /**
   * Resolves with `produce()` once it returns a value other than `undefined`; rejects with
   * `describe()` after `timeoutMs`.
   */
  waitFor<T>(options: {
    produce: () => T | undefined;
    timeoutMs: number;
    describe: () => string;
  }): Promise<T> {
    const { produce, timeoutMs, describe } = options;
    return new Promise<T>((resolve, reject) => {
      const first = produce();
      if (first !== undefined) {
        resolve(first);
        return;
      }
      const waiter: Waiter = {
        check: () => {
          const value = produce();
          if (value === undefined) return false;
          clearTimeout(timer);
          resolve(value);
          return true;
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`Timed out after ${timeoutMs} ms: ${describe()}`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  /** Re-checks every pending waiter. */
  notify(): void {
    for (const waiter of this.#waiters) {
      if (waiter.check()) this.#waiters.delete(waiter);
    }
  }

  /** Rejects every pending waiter (the server is closing). */
  rejectAll(error: Error): void {
    for (const waiter of this.#waiters) waiter.reject(error);
    this.#waiters.clear();
  }
}
