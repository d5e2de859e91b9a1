/**
 * The worker the pool's tests run: jobs that answer, wait, spin, allocate without bound, throw
 * typed and untyped errors, and report which package copy they loaded.
 */
import { ValidationError } from '@fleet/errors';
import { serveJobs } from '../serve-jobs';

export const testJobs = {
  echo: (payload: { text: string }) => ({ text: payload.text, thread: 'worker' }),
  sleep: async (payload: { ms: number; label: string }) => {
    await new Promise((resolve) => setTimeout(resolve, payload.ms));
    return payload.label;
  },
  /** A synchronous loop that never yields: only terminating the thread stops it. */
  spin: (_payload: Record<string, never>) => {
    for (;;) {
      // Busy: nothing else runs on this thread.
    }
  },
  /** Keeps every string it builds: runs out of any heap. */
  hog: (_payload: Record<string, never>) => {
    const kept: string[] = [];
    for (let index = 0; ; index++) kept.push(`${index}`.repeat(1024));
  },
  invalid: (payload: { field: string }) => {
    throw new ValidationError(`The field ${payload.field} is wrong.`, {
      details: { field: payload.field },
    });
  },
  broken: (_payload: Record<string, never>) => {
    throw new RangeError('Maximum call stack size exceeded');
  },
  exit: (_payload: Record<string, never>) => process.exit(3),
};

serveJobs(testJobs);
