import os from 'node:os';
import { ServiceUnavailableError } from '@fleet/errors';
import { findMemoryPlan, type FoundMemoryPlan } from './find-memory-plan';
import type { CgroupPreference } from './memory-bound';
import { runSandboxed } from './run-sandboxed';
import type { Sandbox, SandboxMode, SandboxSetup, SandboxStatus } from './sandbox';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './sandbox-limits';
import { createUidPool } from './uid-pool';

/** Options for {@link createSandbox}. */
export interface CreateSandboxOptions {
  /** @default 'bubblewrap' */
  mode?: SandboxMode;
  /** @default '/usr/bin/bwrap' */
  bwrapPath?: string;
  /** The Python inside the sandbox; it must lie under `/usr` (or `extraReadOnlyPaths`). @default '/usr/bin/python3' */
  python?: string;
  /** @default DEFAULT_SANDBOX_LIMITS */
  limits?: Partial<SandboxLimits>;
  /** More host paths mounted read-only. */
  extraReadOnlyPaths?: readonly string[];
  /** Where work directories are made. @default os.tmpdir() */
  workRoot?: string;
  /**
   * When the service runs as root: the first of the user ids runs switch to (with `setpriv`), one
   * per concurrent run, because root ignores the process limit. @default 61000
   */
  firstUid?: number;
  /** Runs at the same time; more wait for none and fail as busy. @default 4 */
  maxConcurrentRuns?: number;
  /** @default '/usr/bin/setpriv' */
  setprivPath?: string;
  /**
   * Which cgroup bounds a whole run's memory and processes: `auto` (v2, else v1, else the
   * per-process fallback), `required`, `v2`, `v1` (no code runs without it) or `off`. @default 'auto'
   */
  cgroup?: CgroupPreference;
}

/**
 * The code agent's sandbox (docs/architecture.md §10). In `bubblewrap` mode each run gets a fresh work
 * directory mounted at `/work`, no network, a read-only system, private `/tmp`, `/proc` and `/dev`,
 * a new PID namespace that dies with the agent, and CPU, memory, process, file-size, wall-clock
 * and output limits (see `buildBubblewrapArgs`). When the agent runs as root, each run also
 * switches to its own unprivileged user id, so that the process limit holds and host files owned
 * by root stay closed. Where a cgroup can be had (`cgroup`, found once), each run gets its own,
 * which bounds the memory and processes of the whole run; the sandbox starts inside it, an
 * out-of-memory kill ends the whole run as `memory-limit`, and the cgroup is removed afterwards.
 * Without one, runs get fewer processes (see `planMemoryBound`). The work directory is removed
 * after the run, once the files it holds are read.
 *
 * @example
 * const sandbox = createSandbox({ limits: { wallClockMs: 10_000 } });
 * const run = await sandbox.run({ code: 'print(6 * 7)' });
 */
export function createSandbox({
  mode = 'bubblewrap',
  bwrapPath = '/usr/bin/bwrap',
  python = '/usr/bin/python3',
  limits: limitOverrides = {},
  extraReadOnlyPaths = [],
  workRoot = os.tmpdir(),
  firstUid = 61000,
  maxConcurrentRuns = 4,
  setprivPath = '/usr/bin/setpriv',
  cgroup: cgroupPreference = 'auto',
}: CreateSandboxOptions = {}): Sandbox {
  const setup: SandboxSetup = {
    mode,
    bwrapPath,
    python,
    setprivPath,
    extraReadOnlyPaths,
    workRoot,
  };
  const limits: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...limitOverrides };
  const asRoot = process.getuid?.() === 0;
  const uids = createUidPool({ first: firstUid, size: maxConcurrentRuns });
  let running = 0;

  /** Decided once: detection makes and removes a probe cgroup. */
  let planned: Promise<FoundMemoryPlan> | undefined;
  const memoryPlan = (): Promise<FoundMemoryPlan> => {
    planned ??= findMemoryPlan({ preference: cgroupPreference, limits, mode });
    return planned;
  };

  const sandbox: Sandbox = {
    mode,
    limits,
    async memoryBound() {
      return (await memoryPlan()).plan.bound;
    },
    async run(options) {
      if (running >= maxConcurrentRuns) {
        throw new ServiceUnavailableError(
          `All ${maxConcurrentRuns} sandbox slots are busy (CODE_AGENT_MAX_CONCURRENT_RUNS); try again shortly.`,
          { retryable: true },
        );
      }
      const uid = asRoot && mode === 'bubblewrap' ? uids.acquire() : undefined;
      running += 1;
      try {
        return await runSandboxed(setup, options, { uid, memoryPlan });
      } finally {
        running -= 1;
        if (uid !== undefined) uids.release(uid);
      }
    },
    check: () => checkSandbox(sandbox),
  };
  return sandbox;
}

/** Whether `sandbox` can run code here: it runs a tiny program and looks at what it printed. */
async function checkSandbox(sandbox: Sandbox): Promise<SandboxStatus> {
  try {
    const run = await sandbox.run({ code: 'print("sandbox-ok")' });
    if (run.stdout.trim() === 'sandbox-ok') return { available: true };
    return {
      available: false,
      reason: `a test program did not run in the sandbox (exit ${String(run.exitCode)}): ${run.stderr.trim().slice(0, 500)}`,
    };
  } catch (error) {
    return {
      available: false,
      reason: error instanceof Error ? error.message : String(error),
    };
  }
}
