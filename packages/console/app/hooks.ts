import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from './api';

/** What {@link usePolling} holds. */
export interface Polled<T> {
  data: T | undefined;
  /** The last failure's message; cleared by the next success. */
  error: string | undefined;
  /** When the data was last fetched. */
  updatedAt: Date | undefined;
  /** Fetches again now. */
  refresh: () => void;
}

/**
 * Fetches now and then every `intervalMs` while `active` (and while the tab is visible), keeping the
 * last answer. A fetch still in flight is never overlapped by the next one.
 */
export function usePolling<T>(
  load: (signal: AbortSignal) => Promise<T>,
  { intervalMs, active = true, key }: { intervalMs: number; active?: boolean; key: string },
): Polled<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [updatedAt, setUpdatedAt] = useState<Date | undefined>(undefined);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    setData(undefined);
    setError(undefined);
  }, [key]);

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async (): Promise<void> => {
      if (document.visibilityState !== 'hidden') {
        try {
          const value = await loadRef.current(controller.signal);
          if (controller.signal.aborted) return;
          setData(value);
          setError(undefined);
          setUpdatedAt(new Date());
        } catch (failure) {
          if (controller.signal.aborted) return;
          setError(describeError(failure));
        }
      }
      if (active && !controller.signal.aborted) timer = setTimeout(() => void run(), intervalMs);
    };
    void run();
    return () => {
      controller.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [key, active, intervalMs, tick]);

  return { data, error, updatedAt, refresh: () => setTick((value) => value + 1) };
}

const NARROW_QUERY = '(max-width: 600px)';

/** True on a narrow screen (a phone held upright): the plan graph is drawn top to bottom there. */
export function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW_QUERY).matches);
  useEffect(() => {
    const query = window.matchMedia(NARROW_QUERY);
    const update = (): void => setNarrow(query.matches);
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, []);
  return narrow;
}

/** What {@link useAction} gives a form or button. */
export interface Action {
  /** True while the action runs. */
  busy: boolean;
  /** The last failure's message; cleared when the action runs again. */
  error: string | undefined;
  setError: (message: string | undefined) => void;
  /** Runs the action, keeping `busy` and `error`; resolves true when it succeeded. */
  run: (action: () => Promise<void>) => Promise<boolean>;
}

/** One API action behind a button: busy while it runs, its failure in words after. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const run = async (action: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (failure) {
      setError(describeError(failure));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
