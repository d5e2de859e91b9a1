import {
  isActiveStatus,
  syncWaitingStatus,
  type Session,
  type SessionStore,
} from '@fleet/sessions';

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
  /**
   * The session as the run holds it (just created, or read when the run began). Each batch is
   * written from the session the previous one wrote, in one round trip while nobody else changed
   * it (`expected` of {@link SessionStore.update}); otherwise it is a locked read-modify-write.
   */
  session?: Session | undefined;
  /**
   * The run's runner lease: the write that ends the session (completed, failed or canceled)
   * releases it too, in the same round trip (`releaseRunner` of {@link SessionStore.update}), and
   * then calls `onReleased`.
   */
  runner?: { owner: string; onReleased: () => void } | undefined;
}

/** A run's writes to its session: in order, batched, never holding up the run. */
export interface SessionWriter {
  /**
   * Queues a change, applied after every change queued before it. It may run more than once (on
   * the session the run last wrote, then, if that is stale, on the stored one): it must only
   * change the draft.
   */
  record(mutate: (draft: Session) => void): void;
  /**
   * Resolves once every change queued so far is written (or failed and was logged), whatever is
   * queued after this call.
   */
  written(): Promise<void>;
  /** True when every change queued so far is written (or failed): nothing waits or is in flight. */
  idle(): boolean;
  /** Drops every later change: the run was handed over and the session is no longer its own. */
  stop(): void;
}

/**
 * Batches a run's session writes: changes land in order without holding up the run, and changes
 * recorded in one turn of the event loop, or while a write is in flight, go out together in the
 * next write (a fan-out of 16 would otherwise queue 32 writes). Each batch is one round trip: a
 * compare-and-set from the session this run last wrote (`expected` of `SessionStore.update`); when
 * someone else changed the session in between (a decision, an answer or a cancel from the
 * gateway), it is the locked read-modify-write instead. Each batch also keeps the session's status
 * in step with its approvals: `waiting_approval` / `waiting_input` while any is pending, `running`
 * otherwise (a finished session keeps its status).
 *
 * @example
 * const writer = createSessionWriter({ sessions, sessionId, logger, session });
 * writer.record((draft) => { draft.taskId = taskId; });
 * await writer.written();
 */
export function createSessionWriter({
  sessions,
  sessionId,
  logger,
  log = {},
  session,
  runner,
}: SessionWriterOptions): SessionWriter {
  let pending: ((draft: Session) => void)[] = [];
  // What this run last wrote (or started from): the base of the next one-round-trip write.
  let last: Session | undefined = session;
  let flushing: Promise<void> | undefined;
  let stopped = false;
  // Changes are numbered as recorded; `done` is the number of the last one written (or dropped).
  let recorded = 0;
  let done = 0;
  let waiters: { upTo: number; resolve: () => void }[] = [];

  const settle = (upTo: number): void => {
    done = upTo;
    const ready = waiters.filter((waiter) => waiter.upTo <= done);
    if (ready.length === 0) return;
    waiters = waiters.filter((waiter) => waiter.upTo > done);
    for (const waiter of ready) waiter.resolve();
  };

  const flush = async (): Promise<void> => {
    // Changes recorded in the same turn of the event loop go out together: the plan and the
    // first steps' start, a step's end and the run's result.
    await new Promise((resolve) => setImmediate(resolve));
    while (pending.length > 0 && !stopped) {
      const batch = pending;
      const upTo = recorded;
      pending = [];
      await sessions
        .update(
          sessionId,
          (draft) => {
            for (const mutate of batch) mutate(draft);
            syncStatus(draft);
          },
          { expected: last, releaseRunner: runner?.owner },
        )
        .then(
          (written) => {
            last = written.session;
            if (runner !== undefined && !isActiveStatus(written.session.status)) {
              const { onReleased } = runner;
              runner = undefined;
              onReleased();
            }
          },
          (error: unknown) => {
            last = undefined;
            logger.warn({ ...log, err: error }, 'could not record a change of the session');
          },
        );
      settle(upTo);
    }
    // In the same step as the last check (not in a later `finally`): a change recorded from now
    // on starts the next flush instead of waiting behind one that is over.
    flushing = undefined;
  };

  return {
    record(mutate) {
      if (stopped) return;
      pending.push(mutate);
      recorded += 1;
      flushing ??= flush();
    },
    written() {
      const upTo = recorded;
      if (done >= upTo) return Promise.resolve();
      return new Promise((resolve) => {
        waiters.push({ upTo, resolve });
      });
    },
    idle: () => done >= recorded,
    stop() {
      stopped = true;
      pending = [];
      settle(recorded);
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
