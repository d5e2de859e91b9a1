import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

/** Options for {@link runBoundedProcess}. */
export interface RunBoundedProcessOptions {
  command: string;
  args: readonly string[];
  /** The process's environment (nothing is inherited). @default {} */
  env?: Record<string, string>;
  cwd?: string;
  /** Killed (the whole process group) after this many milliseconds. */
  wallClockMs: number;
  /** Bytes kept of stdout and of stderr each; the process is killed as soon as either is over. */
  maxOutputBytes: number;
  /** Aborting kills the process group. */
  signal?: AbortSignal | undefined;
  /**
   * Asked every `intervalMs` while the process runs; when `shouldStop` resolves true, the process
   * group is killed, `onStop` runs (e.g. to kill a cgroup) and the result says `stopped`.
   */
  monitor?: {
    intervalMs: number;
    shouldStop: () => Promise<boolean>;
    onStop?: () => Promise<void>;
  };
}

/** How a bounded process ended. */
export interface BoundedProcessResult {
  stdout: string;
  stderr: string;
  /** The exit code, or null when a signal ended the process. */
  exitCode: number | null;
  /** The signal that ended the process (as Node reports it), if any. */
  signal: NodeJS.Signals | null;
  /** True when the wall-clock limit killed it. */
  timedOut: boolean;
  /** True when stdout or stderr went over the cap and the process was killed for it. */
  outputLimited: boolean;
  /** True when the abort signal killed it. */
  aborted: boolean;
  /** True when the monitor stopped it. */
  stopped: boolean;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  durationMs: number;
}

/** Output kept up to a cap. */
interface Collector {
  /** False once the cap is reached (the part that fits is kept). */
  push(chunk: Buffer): boolean;
  text(): string;
  truncated(): boolean;
}

/** A byte-capped collector: keeps the first `limit` bytes, reports whether more came. */
function collector(limit: number): Collector {
  const chunks: Buffer[] = [];
  let kept = 0;
  let over = false;
  return {
    push(chunk) {
      if (over) return false;
      const room = limit - kept;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        kept = limit;
        over = true;
        return false;
      }
      chunks.push(chunk);
      kept += chunk.length;
      return true;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
    truncated: () => over,
  };
}

/**
 * Reads the child's stdout and stderr, each up to `maxOutputBytes`; the first time either goes
 * over, calls `onOverCap` and stops reading both.
 */
function captureOutput(
  child: ChildProcessByStdio<null, Readable, Readable>,
  { maxOutputBytes, onOverCap }: { maxOutputBytes: number; onOverCap: () => void },
): { stdout: Collector; stderr: Collector } {
  const stdout = collector(maxOutputBytes);
  const stderr = collector(maxOutputBytes);
  let over = false;
  const overCap = (): void => {
    if (over) return;
    over = true;
    onOverCap();
    // Stop reading: what the program still writes goes nowhere, and it is being killed.
    child.stdout.destroy();
    child.stderr.destroy();
  };
  child.stdout.on('data', (chunk: Buffer) => {
    if (!stdout.push(chunk)) overCap();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    if (!stderr.push(chunk)) overCap();
  });
  // A destroyed stream may report an error; the process's end is what counts.
  child.stdout.on('error', () => undefined);
  child.stderr.on('error', () => undefined);
  return { stdout, stderr };
}

/** SIGKILL to a process group; nothing when it is already gone. */
function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Asks `monitor` every `intervalMs`, one question at a time, until `done()`; when it answers
 * true, calls `stop`. Returns the interval to clear.
 */
function pollMonitor(
  monitor: NonNullable<RunBoundedProcessOptions['monitor']>,
  { done, stop }: { done: () => boolean; stop: () => Promise<void> },
): NodeJS.Timeout {
  let checking = false;
  return setInterval(() => {
    if (checking || done()) return;
    checking = true;
    monitor
      .shouldStop()
      .then(async (shouldStop) => {
        if (!shouldStop || done()) return;
        await stop();
      })
      .catch(() => undefined)
      .finally(() => {
        checking = false;
      });
  }, monitor.intervalMs);
}

/**
 * Runs a process in its own process group with a wall-clock limit and capped output: stdout and
 * stderr are read as they come, and the moment either goes over `maxOutputBytes`, or the time is up,
 * or `signal` aborts, the whole group gets SIGKILL and reading stops. Never rejects for what the
 * process does; rejects only when it cannot be started (`ENOENT`, `EACCES`).
 *
 * @example
 * const result = await runBoundedProcess({ command: 'bwrap', args, wallClockMs: 20_000, maxOutputBytes: 1 << 20 });
 */
export function runBoundedProcess({
  command,
  args,
  env = {},
  cwd,
  wallClockMs,
  maxOutputBytes,
  signal,
  monitor,
}: RunBoundedProcessOptions): Promise<BoundedProcessResult> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(command, [...args], {
      env,
      ...(cwd === undefined ? {} : { cwd }),
      // Its own process group, so one kill reaches everything it started outside the sandbox.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let outputLimited = false;
    let aborted = false;
    let stopped = false;
    let settled = false;

    const killGroup = (): void => killProcessGroup(child.pid);
    const { stdout, stderr } = captureOutput(child, {
      maxOutputBytes,
      onOverCap: () => {
        outputLimited = true;
        killGroup();
      },
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, wallClockMs);
    const onAbort = (): void => {
      aborted = true;
      killGroup();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();

    const poll = monitor
      ? pollMonitor(monitor, {
          done: () => stopped || settled,
          stop: async () => {
            stopped = true;
            killGroup();
            await monitor.onStop?.();
          },
        })
      : undefined;

    const finish = (): void => {
      settled = true;
      clearTimeout(timer);
      if (poll !== undefined) clearInterval(poll);
      signal?.removeEventListener('abort', onAbort);
    };
    child.once('error', (error) => {
      if (settled) return;
      finish();
      reject(error);
    });
    child.once('close', (exitCode, exitSignal) => {
      if (settled) return;
      finish();
      // Anything the sandbox left behind in the group goes too.
      killGroup();
      resolve({
        stdout: stdout.text(),
        stderr: stderr.text(),
        exitCode,
        signal: exitSignal,
        timedOut,
        outputLimited,
        aborted,
        stopped,
        stdoutTruncated: stdout.truncated(),
        stderrTruncated: stderr.truncated(),
        durationMs: Date.now() - started,
      });
    });
  });
}
