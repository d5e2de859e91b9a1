import { EventEmitter } from 'node:events';
import { decodePageToken, encodePageToken, matchesQuery, statusTime } from './internal/task-query';
import type {
  SaveTaskOptions,
  TaskBusMessage,
  TaskPage,
  TaskQuery,
  TaskRecord,
  TaskStore,
  Unsubscribe,
} from './task-store';

/**
 * A {@link TaskStore} in process memory, with an `EventEmitter` as the event channel: for tests and
 * single-replica development. Records are copied in and out, so callers cannot change them behind
 * the store's back.
 */
export class InMemoryTaskStore implements TaskStore {
  private readonly records = new Map<string, string>();
  private readonly bus = new EventEmitter();
  private readonly claims = new Set<string>();

  constructor() {
    this.bus.setMaxListeners(0);
  }

  load(taskId: string): Promise<TaskRecord | undefined> {
    const stored = this.records.get(taskId);
    return Promise.resolve(stored === undefined ? undefined : (JSON.parse(stored) as TaskRecord));
  }

  claim(taskId: string, key: string): Promise<boolean> {
    const claimKey = `${taskId}\u0000${key}`;
    if (this.claims.has(claimKey)) return Promise.resolve(false);
    this.claims.add(claimKey);
    return Promise.resolve(true);
  }

  save(record: TaskRecord, { expectedVersion }: SaveTaskOptions = {}): Promise<boolean> {
    if (expectedVersion !== undefined) {
      const stored = this.records.get(record.task.id);
      const current = stored === undefined ? 0 : (JSON.parse(stored) as TaskRecord).version;
      if (current !== expectedVersion) return Promise.resolve(false);
    }
    this.records.set(record.task.id, JSON.stringify(record));
    return Promise.resolve(true);
  }

  list(query: TaskQuery): Promise<TaskPage> {
    const matching = [...this.records.values()]
      .map((stored) => (JSON.parse(stored) as TaskRecord).task)
      .filter((task) => matchesQuery(task, query))
      .sort((a, b) => statusTime(b) - statusTime(a));
    const offset = decodePageToken(query.pageToken);
    const end = offset + query.pageSize;
    return Promise.resolve({
      tasks: matching.slice(offset, end),
      nextPageToken: end < matching.length ? encodePageToken(end) : '',
      totalSize: matching.length,
    });
  }

  async saveAndPublish(record: TaskRecord, messages: readonly TaskBusMessage[]): Promise<void> {
    await this.save(record);
    for (const message of messages) await this.publish(record.task.id, message);
  }

  publish(taskId: string, message: TaskBusMessage): Promise<void> {
    // A copy per publish, as a network hop would make.
    this.bus.emit(taskId, JSON.parse(JSON.stringify(message)) as TaskBusMessage);
    return Promise.resolve();
  }

  subscribe(taskId: string, listener: (message: TaskBusMessage) => void): Promise<Unsubscribe> {
    this.bus.on(taskId, listener);
    return Promise.resolve(() => {
      this.bus.off(taskId, listener);
      return Promise.resolve();
    });
  }

  close(): Promise<void> {
    this.bus.removeAllListeners();
    return Promise.resolve();
  }
}
