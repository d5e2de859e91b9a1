import type { StreamResponse, Task } from '../../../schemas/core';
import type { TaskBusMessage, TaskRecord, TaskStore } from '../../task-store';

/** How many events may wait for their save before the agent is held up until it is done. */
const MAX_UNSAVED_EVENTS = 64;

/**
 * How long a progress line may wait for its save when nothing else is written: a state change
 * in the meantime takes it along (docs/a2a.md §3, "Progress lines").
 */
export const PROGRESS_SAVE_DELAY_MS = 50;

/** One event of the turn, with the version of the task it produced. */
interface UnsavedEvent {
  version: number;
  event: StreamResponse;
  /** A progress line (else a state change, announced only once saved). */
  progressLine: boolean;
  /** In the caller's stream already. */
  announced: boolean;
}

/** Where the writer keeps the task as the turn sees it and as it is stored. */
export interface WrittenTurn {
  readonly taskId: string;
  /** The task with every event applied so far (saved or not); its version grows by one per event. */
  record: TaskRecord;
  /** The events for the caller that started the turn (streaming), if any. */
  readonly queue: { push(event: StreamResponse): void } | undefined;
}

/** Options for {@link TaskWriter.apply}. */
export interface ApplyOptions {
  /**
   * The event is a progress line, not a state change: the caller's stream gets it at once
   * (unless an earlier event still waits for its save), and its save may wait up to
   * {@link PROGRESS_SAVE_DELAY_MS} for the next write. @default false
   */
  progressLine?: boolean | undefined;
}

/**
 * A turn's writes of its task: coalesced, and never between a state change and its announcement.
 *
 * Each event gives the task its next version at once (`turn.record`), but the agent does not wait
 * for the save: events applied while a save is in flight (or in the same turn of the event loop)
 * go out together in the next one, which writes only the latest version. Every event is published
 * on the task's channel only with a write that holds it (in the same script with
 * `saveAndPublish`, else once `save` returned), in order, so a snapshot read after an event was
 * heard on the channel holds it, and a follower that subscribes and then reads a snapshot misses
 * nothing and repeats nothing. Intermediate versions are never stored, which nobody reads: the
 * stored version only grows.
 *
 * The caller's stream gets a state change once the store confirmed the write that holds it. A
 * progress line ({@link ApplyOptions.progressLine}) it gets as soon as every earlier event is in
 * it — at once, or right after the state change before it — and the line's write waits up to
 * {@link PROGRESS_SAVE_DELAY_MS} for a state change to go with. So the caller may see a progress
 * line that `GetTask` does not show yet, or — when the process dies before that write — ever.
 *
 * {@link TaskWriter.settled} writes and waits for everything applied so far; the turn awaits it
 * after an event that ends it (terminal or interrupted status), so the turn is over only once that
 * event is stored. A save that fails puts `turn.record` back to the last saved version, drops the
 * unsaved events and rejects the next `settled()` (the turn then records its failure, as before).
 */
export class TaskWriter {
  private unsaved: UnsavedEvent[] = [];
  /** State changes among {@link TaskWriter.unsaved}: while there are any, writes go out at once. */
  private unsavedStateChanges = 0;
  /** Events applied but not yet in the caller's stream. */
  private unannounced = 0;
  private flushing: Promise<void> | undefined;
  /** The write of progress lines alone, waiting for a state change to go with. */
  private delayed: NodeJS.Timeout | undefined;
  private failure: { error: unknown } | undefined;
  /** The last record the store confirmed. */
  private saved: TaskRecord;

  constructor(
    private readonly store: TaskStore,
    private readonly turn: WrittenTurn,
  ) {
    this.saved = turn.record;
  }

  /**
   * Applies the next version of the task: at once in `turn.record`, in the store and to
   * subscribers soon after. Resolves at once unless too many events wait for their save.
   */
  async apply(
    task: Task,
    event: StreamResponse,
    { progressLine = false }: ApplyOptions = {},
  ): Promise<void> {
    // A save failed: nothing more goes out before the turn hears of it.
    if (this.failure !== undefined) await this.settled();
    const version = this.turn.record.version + 1;
    this.turn.record = { task, version };
    const announced = progressLine && this.unannounced === 0;
    if (announced) this.turn.queue?.push(event);
    else this.unannounced += 1;
    this.unsaved.push({ version, event, progressLine, announced });
    if (!progressLine) this.unsavedStateChanges += 1;
    this.schedule();
    if (this.unsaved.length >= MAX_UNSAVED_EVENTS) await this.settled();
  }

  /** Writes and announces every event applied so far; rejects if a save failed. */
  async settled(): Promise<void> {
    for (;;) {
      if (this.flushing !== undefined) {
        await this.flushing;
      } else if (this.unsaved.length > 0 && this.failure === undefined) {
        this.startFlush({ all: true });
      } else {
        break;
      }
    }
    const failure = this.failure;
    if (failure !== undefined) {
      this.failure = undefined;
      throw failure.error;
    }
  }

  /** Puts the event in the caller's stream, unless it is there already. */
  private announce(entry: UnsavedEvent): void {
    if (entry.announced) return;
    entry.announced = true;
    this.turn.queue?.push(entry.event);
    this.unannounced -= 1;
  }

  /** A write at once while a state change waits for one, else (progress lines alone) a bit later. */
  private schedule(): void {
    if (this.flushing !== undefined) return;
    if (this.unsavedStateChanges > 0) {
      this.startFlush({ all: false });
    } else if (this.delayed === undefined) {
      this.delayed = setTimeout(() => {
        this.delayed = undefined;
        if (this.flushing === undefined) this.startFlush({ all: true });
      }, PROGRESS_SAVE_DELAY_MS);
      this.delayed.unref();
    }
  }

  private startFlush({ all }: { all: boolean }): void {
    clearTimeout(this.delayed);
    this.delayed = undefined;
    this.flushing = this.flush({ all });
  }

  /**
   * Writes batches while a state change waits (or, with `all`, while anything does); progress
   * lines left over wait for the next state change or the delay.
   */
  private async flush({ all }: { all: boolean }): Promise<void> {
    // Events applied in the same turn of the event loop share the save (an event that reaches
    // the agent's generator takes several microtasks to come through: a macrotask, not one).
    await new Promise((resolve) => setImmediate(resolve));
    while (
      this.unsaved.length > 0 &&
      this.failure === undefined &&
      (all || this.unsavedStateChanges > 0)
    ) {
      const batch = this.unsaved;
      this.unsaved = [];
      this.unsavedStateChanges = 0;
      const record = this.turn.record;
      try {
        const messages = batch.map(({ version, event }): TaskBusMessage => ({
          type: 'event',
          version,
          event,
        }));
        if (this.store.saveAndPublish === undefined) {
          await this.store.save(record);
          for (const message of messages) await this.store.publish(this.turn.taskId, message);
        } else {
          await this.store.saveAndPublish(record, messages);
        }
        this.saved = record;
        for (const entry of batch) this.announce(entry);
        // Progress lines applied meanwhile go out now, up to the first state change.
        for (const entry of this.unsaved) {
          if (!entry.progressLine) break;
          this.announce(entry);
        }
      } catch (error) {
        this.failure = { error };
        this.unsaved = [];
        this.unsavedStateChanges = 0;
        this.unannounced = 0;
        this.turn.record = this.saved;
      }
    }
    // In the same step as the last check: an event applied from now on starts the next flush.
    this.flushing = undefined;
    if (this.unsaved.length > 0 && this.failure === undefined) this.schedule();
  }
}
