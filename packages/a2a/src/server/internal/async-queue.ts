/**
 * A push-based async iterator with one consumer: producers `push`, then `end` or `fail`; the
 * consumer iterates. Leaving the iteration early (`return()`) closes the queue and runs `onClose`,
 * so the producer can release what it holds (CONTRIBUTING.md convention 18).
 */
export class AsyncQueue<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private rejectWaiting: ((error: unknown) => void) | undefined;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private closed = false;

  constructor(private readonly onClose?: () => void) {}

  /** True once the consumer has left, or the queue ended. */
  get isClosed(): boolean {
    return this.closed || this.ended;
  }

  push(item: T): void {
    if (this.closed || this.ended) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      this.rejectWaiting = undefined;
      resolve({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.waiting && this.items.length === 0) {
      const resolve = this.waiting;
      this.waiting = undefined;
      this.rejectWaiting = undefined;
      resolve({ value: undefined, done: true });
    }
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.failure = { error };
    this.ended = true;
    if (this.rejectWaiting && this.items.length === 0) {
      const reject = this.rejectWaiting;
      this.waiting = undefined;
      this.rejectWaiting = undefined;
      reject(error);
    }
  }

  next(): Promise<IteratorResult<T>> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve({ value: item, done: false });
    if (this.failure) {
      const { error } = this.failure;
      this.failure = undefined;
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (this.ended || this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise<IteratorResult<T>>((resolve, reject) => {
      this.waiting = resolve;
      this.rejectWaiting = reject;
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.items.length = 0;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      this.rejectWaiting = undefined;
      resolve({ value: undefined, done: true });
    }
    this.onClose?.();
  }
}
