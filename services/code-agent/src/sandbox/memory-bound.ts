import { formatBytes } from './run-outcome';
import type { CgroupSupport } from './run-cgroup';
import type { SandboxLimits } from './sandbox-limits';

/**
 * Which cgroup runs are bounded with. `auto`: cgroup v2, else v1, else the per-process fallback.
 * `required`: v2 or v1, else no code runs. `v2`, `v1`: only that version, else no code runs.
 * `off`: the per-process fallback.
 */
export type CgroupPreference = 'auto' | 'required' | 'v2' | 'v1' | 'off';

/** How a run's memory is bounded: by a cgroup for the whole run, or per process. */
export type MemoryEnforcement = 'cgroup-v2' | 'cgroup-v1' | 'per-process';

/** What bounds the memory of a run here, decided once at start-up. */
export interface MemoryBound {
  enforcement: MemoryEnforcement;
  /** The memory of a whole run (CODE_AGENT_RUN_MEMORY_LIMIT). */
  runMemoryBytes: number;
  /** Address-space limit of each process (RLIMIT_AS); the fallback may lower it. */
  processMemoryBytes: number;
  /** RLIMIT_NPROC of a run; the fallback lowers it. */
  maxProcesses: number;
  /** pids.max of a run's cgroup: processes and threads, bubblewrap's included. */
  maxTasks?: number;
  /** Where the run cgroups are made. */
  cgroupParents?: readonly string[];
  /** Why no cgroup bounds runs (per-process only). */
  reason?: string;
  /** One sentence for people: what is bounded, and how. */
  description: string;
}

/**
 * Processes of a run the sandbox adds to the program's: bubblewrap's init inside the sandbox
 * counts toward RLIMIT_NPROC (it runs as the sandbox user in the sandbox's user namespace).
 */
export const BWRAP_NPROC_OVERHEAD = 1;
/** Tasks a run's cgroup holds besides the program's: bubblewrap outside and its init inside. */
export const CGROUP_TASK_OVERHEAD = 2;
/** Below this, Python does not start: a smaller per-process fallback refuses to run code. */
export const MIN_PROCESS_MEMORY_BYTES = 32 * 1024 * 1024;

/** Options for {@link planMemoryBound}. */
export interface PlanMemoryBoundOptions {
  limits: SandboxLimits;
  support: CgroupSupport;
  /** bubblewrap (true) or unsandboxed (false). */
  sandboxed: boolean;
}

/** The plan: the bound, and the limits runs actually get; or why no code may run. */
export type MemoryPlan =
  | { ok: true; bound: MemoryBound; limits: SandboxLimits }
  | { ok: false; reason: string; bound: MemoryBound };

/**
 * Decides how runs' memory is bounded. With a cgroup, the whole run is bounded by it (all its
 * processes together), the configured limits stay as they are, and pids.max bounds processes
 * and threads. Without one, in the sandbox, the run gets fewer processes so that
 * (processes × address-space limit) + the in-memory /tmp ≤ the run's memory; when even one
 * process would not fit, the one process gets the rest. Unsandboxed, the process limit counts
 * every process of the agent's user (and nothing for root), so nothing bounds the total and the
 * description says so.
 *
 * @example
 * const plan = planMemoryBound({ limits, support: await detectRunCgroups(), sandboxed: true });
 */
export function planMemoryBound({
  limits,
  support,
  sandboxed,
}: PlanMemoryBoundOptions): MemoryPlan {
  const run = limits.runMemoryBytes;
  if (support.version !== 'none') {
    const maxTasks = limits.maxProcesses + CGROUP_TASK_OVERHEAD;
    return {
      ok: true,
      limits,
      bound: {
        enforcement: `cgroup-${support.version}`,
        runMemoryBytes: run,
        processMemoryBytes: limits.memoryBytes,
        maxProcesses: limits.maxProcesses,
        maxTasks,
        cgroupParents: support.parents,
        description: `cgroup ${support.version}, one per run (${support.parents.join(', ')}): all processes of a run together use at most ${formatBytes(run)} of memory (its /tmp included, no swap) and at most ${maxTasks} processes and threads; each process also at most ${formatBytes(limits.memoryBytes)} of address space.`,
      },
    };
  }
  const noCgroup = `no cgroup (${support.reason})`;
  if (!sandboxed) {
    return {
      ok: true,
      limits,
      bound: {
        enforcement: 'per-process',
        runMemoryBytes: run,
        processMemoryBytes: limits.memoryBytes,
        maxProcesses: limits.maxProcesses,
        reason: support.reason,
        description: `per process only, ${noCgroup}: each process has at most ${formatBytes(limits.memoryBytes)} of address space; unsandboxed, the process limit counts every process of the agent's user (and none for root), so the ${formatBytes(run)} of a whole run is NOT enforced.`,
      },
    };
  }
  const available = run - limits.tmpBytes;
  const fits = Math.floor(available / limits.memoryBytes);
  const processes = Math.max(1, Math.min(fits, limits.maxProcesses - BWRAP_NPROC_OVERHEAD));
  const processMemoryBytes = fits >= 1 ? limits.memoryBytes : available;
  const bound: MemoryBound = {
    enforcement: 'per-process',
    runMemoryBytes: run,
    processMemoryBytes,
    maxProcesses: processes + BWRAP_NPROC_OVERHEAD,
    reason: support.reason,
    description: `per process, ${noCgroup}: at most ${processes} process${processes === 1 ? '' : 'es'} (and threads) of at most ${formatBytes(processMemoryBytes)} of address space each, plus the ${formatBytes(limits.tmpBytes)} /tmp: ${processes} × ${formatBytes(processMemoryBytes)} + ${formatBytes(limits.tmpBytes)} = ${formatBytes(processes * processMemoryBytes + limits.tmpBytes)} ≤ ${formatBytes(run)} per run.`,
  };
  if (processMemoryBytes < MIN_PROCESS_MEMORY_BYTES) {
    return {
      ok: false,
      bound,
      reason: `without a cgroup (${support.reason}), the run memory limit ${formatBytes(run)} (CODE_AGENT_RUN_MEMORY_LIMIT) minus the ${formatBytes(limits.tmpBytes)} /tmp (CODE_AGENT_TMP_SIZE) leaves less than ${formatBytes(MIN_PROCESS_MEMORY_BYTES)} for Python. Nothing was run.`,
    };
  }
  return {
    ok: true,
    bound,
    limits: {
      ...limits,
      memoryBytes: processMemoryBytes,
      maxProcesses: processes + BWRAP_NPROC_OVERHEAD,
    },
  };
}
