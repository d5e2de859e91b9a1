import type { StreamResponse, Task, TaskState } from '../schemas/core';

/** A stored task and its version, which grows by one with every write. */
export interface TaskRecord {
  task: Task;
  version: number;
}

/** Options for {@link TaskStore.save}. */
export interface SaveTaskOptions {
  /**
   * Compare-and-set: write only if the stored version equals this (0: only if there is no
   * record yet).
   */
  expectedVersion?: number;
}

/** Which tasks `ListTasks` wants, newest status first. */
export interface TaskQuery {
  contextId?: string | undefined;
  status?: TaskState | undefined;
  /** Only tasks whose status timestamp is after this ISO-8601 instant. */
  statusTimestampAfter?: string | undefined;
  pageSize: number;
  /** The `nextPageToken` of the previous page. */
  pageToken?: string | undefined;
}

/** One page of tasks. */
export interface TaskPage {
  tasks: Task[];
  /** Empty on the last page. */
  nextPageToken: string;
  totalSize: number;
}

/**
 * What travels on a task's channel: its events (with the version they produced, so a subscriber
 * that read a snapshot skips what the snapshot already holds) and cancel requests for the replica
 * running the task.
 */
export type TaskBusMessage =
  | { type: 'event'; version: number; event: StreamResponse }
  | { type: 'cancel'; reason?: string | undefined };

/** Stops a subscription. */
export type Unsubscribe = () => Promise<void>;

/**
 * Where tasks live and how their events reach every replica: persistence (`load`, `save`, `list`)
 * plus a channel per task (`publish`, `subscribe`). {@link InMemoryTaskStore} serves one process;
 * {@link RedisTaskStore} shares tasks and events between replicas.
 */
export interface TaskStore {
  load(taskId: string): Promise<TaskRecord | undefined>;
  /** Writes a record. Returns false when `expectedVersion` did not match (nothing written). */
  save(record: TaskRecord, options?: SaveTaskOptions): Promise<boolean>;
  list(query: TaskQuery): Promise<TaskPage>;
  publish(taskId: string, message: TaskBusMessage): Promise<void>;
  /**
   * Writes a record, then publishes `messages` on its task's channel, in order: what a turn does
   * with a batch of its events. A store that can do both in one step (one round trip, the
   * publishes only once the write is done) implements it; without it the server calls `save` and
   * then `publish` for each message.
   */
  saveAndPublish?(record: TaskRecord, messages: readonly TaskBusMessage[]): Promise<void>;
  /** Resolves once the subscription is active, so nothing published afterwards is missed. */
  subscribe(taskId: string, listener: (message: TaskBusMessage) => void): Promise<Unsubscribe>;
  /**
   * Records that `key` happened for the task, once: true for the first caller, false for every
   * later one, on any replica (docs/architecture.md §4: side effects happen at most once).
   */
  claim(taskId: string, key: string): Promise<boolean>;
  /**
   * Sets or renews the lease of a turn running the task, for `ttlMs`. A store shared between
   * replicas implements the three lease methods, so a replica can tell a turn that runs elsewhere
   * from one whose replica died (its task is then failed, not left WORKING for ever).
   */
  holdTurn?(taskId: string, ttlMs: number): Promise<void>;
  /** Drops the turn's lease (the turn ended). */
  releaseTurn?(taskId: string): Promise<void>;
  /** Whether a live turn holds the task's lease. */
  turnHeld?(taskId: string): Promise<boolean>;
  /**
   * Listens for cancel requests of every task of this store on one channel: `listener` gets the
   * task id of each `{ type: 'cancel' }` published from now on. A store shared between replicas
   * implements it so a running turn needs no subscription of its own (one per replica instead of a
   * SUBSCRIBE and an UNSUBSCRIBE per turn, and the turn does not hear its own events back); without
   * it each turn subscribes to its task's channel.
   */
  listenForCancels?(listener: (taskId: string, reason?: string) => void): Promise<Unsubscribe>;
  /** Releases connections the store opened itself (not the ones it was given). */
  close(): Promise<void>;
}
