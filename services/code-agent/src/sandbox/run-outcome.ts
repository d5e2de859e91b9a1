import type { BoundedProcessResult } from './run-bounded-process';
import type { SandboxLimits } from './sandbox-limits';

/**
 * How a run ended. `ok`: exit code 0. `error`: the program failed on its own (exception, non-zero
 * exit). The others name the limit that stopped it.
 */
export type RunOutcome =
  | 'ok'
  | 'error'
  | 'timeout'
  | 'cpu-limit'
  | 'memory-limit'
  | 'file-size-limit'
  | 'process-limit'
  | 'output-limit'
  | 'canceled';

/** bubblewrap exits with 128 + the signal number when the program is killed by a signal. */
const SIGNAL_EXIT_BASE = 128;
const SIGKILL = 9;
const SIGXCPU = 24;
const SIGXFSZ = 25;

/** The signal number a program died of, from the exit code or Node's signal name. */
export function signalNumberOf(
  result: Pick<BoundedProcessResult, 'exitCode' | 'signal'>,
): number | undefined {
  if (result.signal === 'SIGKILL') return SIGKILL;
  if (result.signal === 'SIGXCPU') return SIGXCPU;
  if (result.signal === 'SIGXFSZ') return SIGXFSZ;
  if (result.exitCode !== null && result.exitCode > SIGNAL_EXIT_BASE) {
    const number = result.exitCode - SIGNAL_EXIT_BASE;
    return number < 65 ? number : undefined;
  }
  return undefined;
}

/** Python's last traceback line for a failed allocation or a refused fork. */
const MEMORY_ERROR = /^MemoryError\b/m;
const FORK_REFUSED = /BlockingIOError: \[Errno 11\]|Resource temporarily unavailable/;
const FILE_TOO_LARGE = /\[Errno 27\] File too large/;

/** What the run's cgroup saw, beside the process's own end. */
export interface RunCgroupFindings {
  /** The kernel killed a process of the run for going over the run's memory limit. */
  runMemoryExceeded?: boolean;
}

/**
 * Names what ended a run, the limit first: cancellation, the run's memory limit (an OOM kill in
 * its cgroup, which then kills the whole run), the wall clock, the output cap, CPU time (SIGXCPU
 * or the SIGKILL that follows it), the file-size limit (SIGXFSZ or EFBIG), memory per process
 * (MemoryError) and the process limit (fork refused) — the last two show only in stderr, since
 * the program itself sees the failure.
 *
 * @example
 * const outcome = classifyOutcome(result); // 'timeout'
 */
export function classifyOutcome(
  result: BoundedProcessResult,
  { runMemoryExceeded = false }: RunCgroupFindings = {},
): RunOutcome {
  if (result.aborted) return 'canceled';
  if (runMemoryExceeded) return 'memory-limit';
  if (result.timedOut) return 'timeout';
  if (result.outputLimited) return 'output-limit';
  const signal = signalNumberOf(result);
  if (signal === SIGXCPU || signal === SIGKILL) return 'cpu-limit';
  if (signal === SIGXFSZ || FILE_TOO_LARGE.test(result.stderr)) return 'file-size-limit';
  if (result.exitCode === 0) return 'ok';
  if (MEMORY_ERROR.test(result.stderr)) return 'memory-limit';
  if (FORK_REFUSED.test(result.stderr)) return 'process-limit';
  return 'error';
}

/**
 * What a limit did, for people, and what they can do about it (change the program, or have an
 * operator raise the limit, named by its variable): `null` for `ok` and `error`, which the exit
 * code and stderr explain.
 *
 * @example
 * describeOutcome('timeout', limits);
 * // 'Stopped: it ran longer than the 20 s wall-clock limit. Make it finish sooner, or ask an operator to raise CODE_AGENT_TIMEOUT_MS.'
 */
export function describeOutcome(
  outcome: RunOutcome,
  limits: SandboxLimits,
  { runMemoryExceeded = false }: RunCgroupFindings = {},
): string | null {
  switch (outcome) {
    case 'ok':
    case 'error':
      return null;
    case 'timeout':
      return `Stopped: it ran longer than the ${formatSeconds(limits.wallClockMs)} wall-clock limit. ${raise('Make it finish sooner', 'CODE_AGENT_TIMEOUT_MS')}`;
    case 'cpu-limit':
      return `Stopped: it used more than the ${limits.cpuSeconds} s CPU-time limit. ${raise('Make it do less work', 'CODE_AGENT_CPU_SECONDS')}`;
    case 'memory-limit':
      if (runMemoryExceeded) {
        return `Stopped: the program used more than ${formatBytes(limits.runMemoryBytes)} of memory in total (all its processes together, the run's memory limit), so the whole run was killed. ${raise('Use less memory', 'CODE_AGENT_RUN_MEMORY_LIMIT')}`;
      }
      return `Stopped: it tried to use more than the ${formatBytes(limits.memoryBytes)} memory limit (MemoryError). ${raise('Use less memory', 'CODE_AGENT_MEMORY_LIMIT')}`;
    case 'file-size-limit':
      return `Stopped: it tried to write a file larger than the ${formatBytes(limits.maxFileBytes)} file-size limit. ${raise('Write smaller files', 'CODE_AGENT_MAX_FILE_SIZE')}`;
    case 'process-limit':
      return `Stopped: it tried to start more processes than the process limit allows (${limits.maxProcesses} processes and threads, the sandbox's own included). ${raise('Start fewer processes or threads', 'CODE_AGENT_MAX_PROCESSES')}`;
    case 'output-limit':
      return `Stopped: it printed more than the ${formatBytes(limits.maxOutputBytes)} output limit; the output is cut there. ${raise('Print less', 'CODE_AGENT_MAX_OUTPUT')}`;
    case 'canceled':
      return 'Stopped: the task was canceled.';
  }
}

/** What a person can do about a limit: change the program, or have an operator raise it. */
function raise(change: string, variable: string): string {
  return `${change}, or ask an operator to raise ${variable}.`;
}

function formatSeconds(milliseconds: number): string {
  const seconds = milliseconds / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/** `512 MiB`, `64 KiB`, `100 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}
