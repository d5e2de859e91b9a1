/**
 * An unbounded single-consumer queue that a producer running on its own fills and a generator
 * drains: the run keeps going (and keeps recording its session) even when the consumer stops
 * reading, e.g. because the client that streamed it went away.
 */
export class EventQueue<T extends object> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiting: ((result: IteratorResult<T, undefined>) => void) | undefined;
  private closed = false;

  /** Adds an item; ignored once closed. */
  push(item: T): void {
    if (this.closed) return;
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      waiting({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  /** Ends the iteration once the queued items are read. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T, undefined> {
    return {
      next: () => {
        const item = this.items.shift();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
      return: () => {
        // The consumer left: drop what is queued, let the producer go on without it.
        this.items.length = 0;
        this.closed = true;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
