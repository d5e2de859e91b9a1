import type { StreamResponse, Task } from '../../../schemas/core';
import type { TaskBusMessage, TaskRecord, TaskStore } from '../../task-store';

/** How many events may wait for their save before the agent is held up until it is done. */
const MAX_UNSAVED_EVENTS = 64;

/** One event of the turn, with the version of the task it produced. */
interface UnsavedEvent {
  version: number;
  event: StreamResponse;
}

/** Where the writer keeps the task as the turn sees it and as it is stored. */
export interface WrittenTurn {
  readonly taskId: string;
  /** The task with every event applied so far (saved or not); its version grows by one per event. */
  record: TaskRecord;
  /** The events for the caller that started the turn (streaming), if any. */
  readonly queue: { push(event: StreamResponse): void } | undefined;
}

/**
 * A turn's writes of its task: coalesced, and never between an event and its announcement.
 *
 * Each event gives the task its next version at once (`turn.record`), but the agent does not wait
 * for the save: events applied while a save is in flight (or in the same turn of the event loop)
 * go out together in the next one, which writes only the latest version. Every event is announced
 * only after a write that holds it, in order: published on the task's channel after the write
 * (in the same script with `saveAndPublish`, else once `save` returned), and pushed to the
 * caller's stream once the store confirmed both. So a snapshot read after an event was seen holds
 * it, and a follower that subscribes and then reads a snapshot misses nothing. Intermediate
 * versions are never stored, which nobody reads: the stored version only grows.
 *
 * {@link TaskWriter.settled} waits for every write so far; the turn awaits it after an event that
 * ends it (terminal or interrupted status), so the turn is over only once that event is stored.
 * A save that fails puts `turn.record` back to the last saved version, drops the unsaved events
 * and rejects the next `settled()` (the turn then records its failure, as before).
 */
export class TaskWriter {
  private unsaved: UnsavedEvent[] = [];
  private flushing: Promise<void> | undefined;
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
  async apply(task: Task, event: StreamResponse): Promise<void> {
    // A save failed: nothing more goes out before the turn hears of it.
    if (this.failure !== undefined) await this.settled();
    const version = this.turn.record.version + 1;
    this.turn.record = { task, version };
    this.unsaved.push({ version, event });
    this.flushing ??= this.flush();
    if (this.unsaved.length >= MAX_UNSAVED_EVENTS) await this.settled();
  }

  /** Resolves once every event applied so far is saved and announced; rejects if a save failed. */
  async settled(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
    const failure = this.failure;
    if (failure !== undefined) {
      this.failure = undefined;
      throw failure.error;
    }
  }

  private async flush(): Promise<void> {
    // Events applied in the same turn of the event loop share the save.
    await Promise.resolve();
    while (this.unsaved.length > 0 && this.failure === undefined) {
      const batch = this.unsaved;
      this.unsaved = [];
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
        for (const { event } of batch) this.turn.queue?.push(event);
      } catch (error) {
        this.failure = { error };
        this.unsaved = [];
        this.turn.record = this.saved;
      }
    }
    // In the same step as the last check: an event applied from now on starts the next flush.
    this.flushing = undefined;
  }
}
