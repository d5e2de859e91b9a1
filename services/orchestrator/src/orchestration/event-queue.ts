/** Options for {@link EventQueue.push}. */
export interface PushOptions {
  /**
   * The item is read only once this settles (resolved or rejected), and so are the items pushed
   * after it: the order stays the order of `push`.
   */
  after?: PromiseLike<unknown> | undefined;
}

/** One queued item, and whether what it waits for has settled. */
interface Entry<T> {
  item: T;
  ready: boolean;
}

/**
 * An unbounded single-consumer queue that a producer running on its own fills and a generator
 * drains: the run keeps going (and keeps recording its session) even when the consumer stops
 * reading, e.g. because the client that streamed it went away. An item may wait for something
 * (`after`): a run's state change waits for the session write that records it, and every later
 * item waits behind it.
 */
export class EventQueue<T extends object> implements AsyncIterable<T> {
  private entries: Entry<T>[] = [];
  private waiting: ((result: IteratorResult<T, undefined>) => void) | undefined;
  private closed = false;

  /** Adds an item, read once `after` (if any) has settled; ignored once closed. */
  push(item: T, { after }: PushOptions = {}): void {
    if (this.closed) return;
    const entry: Entry<T> = { item, ready: after === undefined };
    this.entries.push(entry);
    if (after !== undefined) {
      const ready = (): void => {
        entry.ready = true;
        this.deliver();
      };
      after.then(ready, ready);
    }
    this.deliver();
  }

  /** Ends the iteration once the queued items are read. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.deliver();
  }

  /** Hands the next item (or the end) to a waiting consumer, when there is one to hand. */
  private deliver(): void {
    const waiting = this.waiting;
    if (waiting === undefined) return;
    const head = this.entries[0];
    if (head?.ready === true) {
      this.entries.shift();
      this.waiting = undefined;
      waiting({ value: head.item, done: false });
    } else if (head === undefined && this.closed) {
      this.waiting = undefined;
      waiting({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T, undefined> {
    return {
      next: () => {
        const head = this.entries[0];
        if (head?.ready === true) {
          this.entries.shift();
          return Promise.resolve({ value: head.item, done: false });
        }
        if (head === undefined && this.closed) {
          return Promise.resolve({ value: undefined, done: true });
        }
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
      return: () => {
        // The consumer left: drop what is queued, let the producer go on without it.
        this.entries = [];
        this.closed = true;
        const waiting = this.waiting;
        this.waiting = undefined;
        waiting?.({ value: undefined, done: true });
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
