import type { AgentContext, AgentEvent } from '@fleet/a2a/server';
import type { AgentEvents } from '@fleet/agent-kit';

/** Most tasks whose work may wait for a person's answer at once; above it a question is cancelled. */
export const MAX_WAITING_QUESTIONS = 500;

/** How long finished work whose question went unanswered keeps its last events for the answer. */
const FINISHED_KEPT_MS = 60 * 60 * 1000;

type Item = { event: AgentEvent } | { end: true } | { error: unknown };

interface Job {
  readonly taskId: string;
  readonly items: Item[];
  readonly controller: AbortController;
  /** Wakes the turn that drains the job. */
  wake: (() => void) | undefined;
  /** Set while the work waits for the person's answer. */
  answer: ((text: string) => void) | undefined;
  /** True while a turn drains the job. */
  attached: boolean;
  /** True once the job asked a question whose turn ended: it outlives the turn. */
  parked: boolean;
  finished: boolean;
  forgetTimer: NodeJS.Timeout | undefined;
}

/**
 * Runs a task's work apart from its A2A turn, so that an MCP server's question (elicitation) can
 * end the turn as TASK_STATE_INPUT_REQUIRED while the tool call that asked stays open, and the
 * continuation carrying the person's answer picks the same work up where it waits. The work lives
 * in this process: a restart of the tools agent loses a waiting call (the continuation then fails
 * the step, saying so).
 */
export interface ToolQuestions {
  /** Runs `work` for the turn's task, yielding its events until it ends or the task is interrupted. */
  run(context: AgentContext, work: (context: AgentContext) => AgentEvents): AgentEvents;
  /**
   * The continuation of a task whose work asked a question here: delivers `answer` and yields the
   * rest of the work. Undefined when no work of that task waits in this process.
   */
  resume(context: AgentContext, answer: string): AgentEvents | undefined;
  /**
   * Called by the work: interrupts the task with `question` (an INPUT_REQUIRED status) and resolves
   * with the person's answer, or undefined when `signal` aborts first (or too many wait already).
   */
  ask(taskId: string, question: AgentEvent, signal: AbortSignal): Promise<string | undefined>;
  /** Tasks whose work waits here (for tests and metrics). */
  waiting(): number;
}

function isInterrupting(event: AgentEvent): boolean {
  return (
    event.type === 'status' &&
    (event.state === 'TASK_STATE_INPUT_REQUIRED' || event.state === 'TASK_STATE_AUTH_REQUIRED')
  );
}

/** Aborts the job's work when `signal` (the turn's) aborts. */
function link(job: Job, signal: AbortSignal): void {
  const abort = (): void => job.controller.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
}

/** A new job of `taskId`, not yet drained, asked or finished. */
function newJob(taskId: string): Job {
  return {
    taskId,
    items: [],
    controller: new AbortController(),
    wake: undefined,
    answer: undefined,
    attached: false,
    parked: false,
    finished: false,
    forgetTimer: undefined,
  };
}

/**
 * Yields a job's events to the turn draining it until the work ends or an interrupting event ends
 * the turn; `forget` drops the job from the register when nothing will come back for it.
 */
async function* drain(job: Job, forget: (job: Job) => void): AgentEvents {
  job.attached = true;
  try {
    for (;;) {
      const item = job.items.shift();
      if (item === undefined) {
        await new Promise<void>((resolve) => {
          job.wake = resolve;
        });
        job.wake = undefined;
        continue;
      }
      if ('end' in item) {
        forget(job);
        return;
      }
      if ('error' in item) {
        forget(job);
        throw item.error;
      }
      if (isInterrupting(item.event)) {
        // The turn ends with this event (the server stops pulling after it, so decide first):
        // work waiting for an answer stays; other work is over.
        if (job.answer !== undefined) job.parked = true;
        else forget(job);
        yield item.event;
        return;
      }
      yield item.event;
    }
  } finally {
    job.attached = false;
  }
}

/**
 * The tools agent's register of work that may wait for answers. See {@link ToolQuestions}.
 *
 * @example
 * const questions = createToolQuestions();
 * yield* questions.run(context, (detached) => startTask(settings, detached, task));
 */
export function createToolQuestions({
  maxWaiting = MAX_WAITING_QUESTIONS,
}: { maxWaiting?: number } = {}): ToolQuestions {
  const jobs = new Map<string, Job>();

  const forget = (job: Job): void => {
    if (job.forgetTimer !== undefined) clearTimeout(job.forgetTimer);
    if (jobs.get(job.taskId) === job) jobs.delete(job.taskId);
  };

  const push = (job: Job, item: Item): void => {
    job.items.push(item);
    if (!('event' in item)) {
      job.finished = true;
      // Finished with nobody draining: an approval ended the turn (nothing more to give), or a
      // question went unanswered (its last events wait a while for the late answer).
      if (!job.attached) {
        if (!job.parked) forget(job);
        else job.forgetTimer = setTimeout(() => forget(job), FINISHED_KEPT_MS).unref();
      }
    }
    job.wake?.();
  };

  return {
    run(context, work) {
      const job = newJob(context.task.id);
      jobs.get(job.taskId)?.controller.abort(new Error('The task was started again.'));
      jobs.set(job.taskId, job);
      link(job, context.signal);
      const detached: AgentContext = { ...context, signal: job.controller.signal };
      void (async () => {
        try {
          for await (const event of work(detached)) push(job, { event });
          push(job, { end: true });
        } catch (error) {
          push(job, { error });
        }
      })();
      return drain(job, forget);
    },

    resume(context, answer) {
      const job = jobs.get(context.task.id);
      if (job === undefined || job.attached) return undefined;
      if (job.forgetTimer !== undefined) clearTimeout(job.forgetTimer);
      link(job, context.signal);
      job.answer?.(answer);
      return drain(job, forget);
    },

    ask(taskId, question, signal) {
      const job = jobs.get(taskId);
      const waiting = [...jobs.values()].filter((each) => each.answer !== undefined).length;
      if (job === undefined || signal.aborted || waiting >= maxWaiting) {
        return Promise.resolve(undefined);
      }
      return new Promise<string | undefined>((resolve) => {
        const settle = (text: string | undefined): void => {
          job.answer = undefined;
          signal.removeEventListener('abort', onAbort);
          resolve(text);
        };
        const onAbort = (): void => settle(undefined);
        job.answer = (text) => settle(text);
        signal.addEventListener('abort', onAbort, { once: true });
        push(job, { event: question });
      });
    },

    waiting() {
      return [...jobs.values()].filter((job) => job.answer !== undefined).length;
    },
  };
}
