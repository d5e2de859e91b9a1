/** The most `node-progress` lines one step sends by default. */
export const DEFAULT_MAX_PROGRESS_PER_STEP = 50;

/** The shortest time between two `node-progress` lines of one step by default, in ms. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 500;

/** What a step's agent says it is doing, as a `node-progress` event carries it. */
export interface NodeProgress {
  nodeId: string;
  agent: string;
  text: string;
  stage?: string | undefined;
}

/** Options for {@link createProgressThrottle}. */
export interface ProgressThrottleOptions {
  /** Shortest time between two lines of one step, in ms (above 0). */
  intervalMs: number;
  /** The most lines one step sends, the last one kept for the step's latest text. @default 50 */
  maxPerStep?: number | undefined;
  /** Sends one line. Must not throw. */
  emit: (progress: NodeProgress) => void;
}

/** Limits how often each step's progress lines go out ({@link createProgressThrottle}). */
export interface ProgressThrottle {
  /** What a step's agent said, as it arrives. */
  push(progress: NodeProgress): void;
  /** The step ended: its pending line, if any, goes out now (before the step's end). */
  flush(nodeId: string): void;
  /** The run ended: nothing more goes out, pending lines are dropped. */
  close(): void;
}

interface StepState {
  sent: number;
  lastSentAt: number;
  /** The text (and stage) last sent, to drop repeats. */
  last: string | undefined;
  pending: NodeProgress | undefined;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Rate-limits the agents' progress lines per step, so a chatty agent cannot flood the stream: a
 * line goes out at once when the step's previous one is at least `intervalMs` old, else the latest
 * one waiting goes out when the interval has passed (the ones in between are dropped); a line that
 * repeats the one before is dropped; a step sends at most `maxPerStep`, and the last of them is
 * kept for the end, so the step's latest text is not lost ({@link ProgressThrottle.flush}).
 *
 * @example
 * const throttle = createProgressThrottle({ intervalMs: 500, emit: (line) => progress({ type: 'node-progress', ...line }) });
 */
export function createProgressThrottle({
  intervalMs,
  maxPerStep = DEFAULT_MAX_PROGRESS_PER_STEP,
  emit,
}: ProgressThrottleOptions): ProgressThrottle {
  const steps = new Map<string, StepState>();
  let closed = false;

  const keyOf = (progress: NodeProgress): string => `${progress.stage ?? ''}\u0000${progress.text}`;

  const send = (step: StepState): void => {
    const pending = step.pending;
    step.pending = undefined;
    if (pending === undefined || closed || step.sent >= maxPerStep) return;
    const key = keyOf(pending);
    if (key === step.last) return;
    step.sent += 1;
    step.last = key;
    step.lastSentAt = performance.now();
    emit(pending);
  };

  const clearTimer = (step: StepState): void => {
    if (step.timer === undefined) return;
    clearTimeout(step.timer);
    step.timer = undefined;
  };

  return {
    push(progress) {
      if (closed) return;
      let step = steps.get(progress.nodeId);
      if (step === undefined) {
        step = {
          sent: 0,
          lastSentAt: Number.NEGATIVE_INFINITY,
          last: undefined,
          pending: undefined,
          timer: undefined,
        };
        steps.set(progress.nodeId, step);
      }
      if (step.sent >= maxPerStep) return;
      step.pending = progress;
      // The last line a step may send waits for its end, whatever its text then is.
      if (step.sent >= maxPerStep - 1 || step.timer !== undefined) return;
      const wait = step.lastSentAt + intervalMs - performance.now();
      if (wait <= 0) {
        send(step);
        return;
      }
      const current = step;
      current.timer = setTimeout(() => {
        current.timer = undefined;
        send(current);
      }, wait);
      current.timer.unref();
    },
    flush(nodeId) {
      const step = steps.get(nodeId);
      if (step === undefined) return;
      clearTimer(step);
      send(step);
    },
    close() {
      closed = true;
      for (const step of steps.values()) {
        clearTimer(step);
        step.pending = undefined;
      }
    },
  };
}
