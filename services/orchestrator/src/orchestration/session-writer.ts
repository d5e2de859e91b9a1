import { syncWaitingStatus, type Session, type SessionStore } from '@fleet/sessions';

/** The logging a session writer needs. */
export interface SessionWriterLogger {
  warn(object: object, message?: string): void;
}

/** Options for {@link createSessionWriter}. */
export interface SessionWriterOptions {
  sessions: SessionStore;
  sessionId: string;
  logger: SessionWriterLogger;
  /** Added to every log line. */
  log?: object;
}

/** A run's writes to its session: in order, batched, never holding up the run. */
export interface SessionWriter {
  /** Queues a change; it is applied under the session's lock, after every change queued before it. */
  record(mutate: (draft: Session) => void): void;
  /** Resolves once every change queued so far is written (or failed and was logged). */
  written(): Promise<void>;
  /** Drops every later change: the run was handed over and the session is no longer its own. */
  stop(): void;
}

/**
 * Batches a run's session writes: changes land in order without holding up the run, and changes
 * queued while a write is in flight are applied together in the next one — one locked
 * read-modify-write per batch instead of per change (a fan-out of 16 would otherwise queue 32
 * Redlock round trips). Each batch also keeps the session's status in step with its approvals:
 * `waiting_approval` / `waiting_input` while any is pending, `running` otherwise (a finished
 * session keeps its status).
 *
 * @example
 * const writer = createSessionWriter({ sessions, sessionId, logger });
 * writer.record((draft) => { draft.taskId = taskId; });
 * await writer.written();
 */
export function createSessionWriter({
  sessions,
  sessionId,
  logger,
  log = {},
}: SessionWriterOptions): SessionWriter {
  let pending: ((draft: Session) => void)[] = [];
  let flushing: Promise<void> | undefined;
  let stopped = false;

  const flush = async (): Promise<void> => {
    while (pending.length > 0 && !stopped) {
      const batch = pending;
      pending = [];
      await sessions
        .update(sessionId, (draft) => {
          for (const mutate of batch) mutate(draft);
          syncStatus(draft);
        })
        .catch((error: unknown) => {
          logger.warn({ ...log, err: error }, 'could not record a change of the session');
        });
    }
  };

  return {
    record(mutate) {
      if (stopped) return;
      pending.push(mutate);
      flushing ??= flush().finally(() => {
        flushing = undefined;
      });
    },
    async written() {
      while (flushing !== undefined) await flushing;
    },
    stop() {
      stopped = true;
      pending = [];
    },
  };
}

/**
 * `waiting_approval` while an approval is pending, `waiting_input` while only questions are, else
 * `running`; a finished session keeps its status.
 */
export function syncStatus(draft: Session): void {
  syncWaitingStatus(draft);
}
