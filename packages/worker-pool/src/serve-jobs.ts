import { parentPort } from 'node:worker_threads';
import { jobRequestSchema, serializeError, type JobRequest } from './job-messages';

/**
 * The jobs a worker runs, by kind: each takes the job's payload (structured-cloned from the pool)
 * and returns (or resolves to) its result, which is cloned back. A thrown `FleetError` reaches
 * the caller with its code and details; anything else becomes a `WorkerJobFailedError`.
 */
export type JobHandlers = Record<string, (payload: never) => unknown>;

/** The kinds of job a set of handlers runs. */
export type JobKind<THandlers extends JobHandlers> = Extract<keyof THandlers, string>;

/** The payload of one kind of job. */
export type JobPayload<
  THandlers extends JobHandlers,
  TKind extends JobKind<THandlers>,
> = Parameters<THandlers[TKind]>[0];

/** The result of one kind of job. */
export type JobResult<THandlers extends JobHandlers, TKind extends JobKind<THandlers>> = Awaited<
  ReturnType<THandlers[TKind]>
>;

/**
 * Runs jobs in a worker thread of a `WorkerPool`: call it once from the pool's entry module with
 * the handlers. It tells the pool it is ready (module loading does not count against a job's
 * time budget) and answers each job with its result or its error. One job runs at a time: the
 * pool sends the next only after the answer.
 *
 * @example
 * // parse-worker.ts, the pool's entry
 * export const handlers = { parse: (input: ParseInput) => parse(input) };
 * serveJobs(handlers);
 */
export function serveJobs(handlers: JobHandlers): void {
  const port = parentPort;
  if (port === null) {
    throw new Error('serveJobs runs inside a worker thread started by a WorkerPool.');
  }
  async function run({ id, kind, payload }: JobRequest): Promise<void> {
    try {
      const handler = Object.hasOwn(handlers, kind) ? handlers[kind] : undefined;
      if (handler === undefined) throw new Error(`This worker has no job "${kind}".`);
      const value: unknown = await handler(payload as never);
      port?.postMessage({ type: 'result', id, value });
    } catch (error) {
      // Also a result that cannot be cloned (DataCloneError).
      port?.postMessage({ type: 'failure', id, error: serializeError(error) });
    }
  }
  port.on('message', (message: unknown) => {
    const request = jobRequestSchema.safeParse(message);
    if (request.success) void run(request.data);
  });
  port.postMessage({ type: 'ready' });
}
