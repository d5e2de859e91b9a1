import { constants } from 'node:fs';
import { access, chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ServiceUnavailableError } from '@fleet/errors';
import { buildBubblewrapArgs } from './bubblewrap-args';
import { collectFiles, type SkippedFile, type WrittenFile } from './collect-files';
import { limitLauncher, PROGRAM_FILENAME } from './limit-launcher';
import {
  planMemoryBound,
  type CgroupPreference,
  type MemoryBound,
  type MemoryEnforcement,
  type MemoryPlan,
} from './memory-bound';
import { runBoundedProcess, type BoundedProcessResult } from './run-bounded-process';
import {
  detectRunCgroups,
  joinCgroupArgs,
  JOIN_FAILED_EXIT_CODE,
  JOIN_FAILED_MARKER,
  type CgroupSupport,
  type RunCgroup,
  type RunCgroupUsage,
} from './run-cgroup';
import { classifyOutcome, describeOutcome, signalNumberOf, type RunOutcome } from './run-outcome';
import { SandboxUnavailableError } from './sandbox-unavailable-error';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './sandbox-limits';
import { createUidPool } from './uid-pool';

/**
 * `bubblewrap`: every run in a bubblewrap sandbox (the default, and the only safe choice).
 * `unsandboxed`: runs as a plain child process with the resource limits but no isolation, for
 * trusted setups without namespaces; chosen on purpose only (CODE_AGENT_SANDBOX).
 */
export type SandboxMode = 'bubblewrap' | 'unsandboxed';

/** Whether the sandbox can run code here, and why not. */
export type SandboxStatus = { available: true } | { available: false; reason: string };

/** How a run's memory was bounded, and what it used. */
export interface RunMemory {
  /** `cgroup-v2`/`cgroup-v1`: all its processes together; `per-process`: each one (the fallback). */
  enforcement: MemoryEnforcement;
  /** The run's memory limit, in bytes. */
  limitBytes: number;
  /** The most the run's processes used at once, as its cgroup measured it; null without one. */
  peakBytes: number | null;
}

/** One finished run. */
export interface CodeRun {
  outcome: RunOutcome;
  /** The program's exit code; null when it was killed. */
  exitCode: number | null;
  /** The signal number that ended it, if one did. */
  signal: number | undefined;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  durationMs: number;
  /** Files the program wrote into its work directory. */
  files: WrittenFile[];
  /** Files it wrote that are not returned, with the reason. */
  skippedFiles: SkippedFile[];
  /** What a limit did, in one sentence; null when no limit stopped it. */
  limitMessage: string | null;
  mode: SandboxMode;
  memory: RunMemory;
}

/** What a run is given. */
export interface RunCodeOptions {
  /** The Python program. */
  code: string;
  /** More files for the work directory (name → content), e.g. `inputs.json`. */
  inputFiles?: Readonly<Record<string, string>>;
  signal?: AbortSignal | undefined;
}

/** Runs Python programs, each in a fresh work directory, within the limits. */
export interface Sandbox {
  readonly mode: SandboxMode;
  readonly limits: SandboxLimits;
  /** Whether code can run here; the reason says what to fix. Checked by running a tiny program. */
  check(): Promise<SandboxStatus>;
  /** How a run's memory is bounded here (found out once, at the first call or run). */
  memoryBound(): Promise<MemoryBound>;
  /**
   * Runs one program. Rejects with {@link SandboxUnavailableError} when the sandbox cannot start
   * (nothing ran) and with a ServiceUnavailableError when every slot is busy; whatever the program
   * does is reported in the result.
   */
  run(options: RunCodeOptions): Promise<CodeRun>;
}

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

/** How often a running program's cgroup is checked for an out-of-memory kill. */
const OOM_POLL_MS = 100;

/** Finds the cgroup support the preference asks for. */
async function cgroupSupportFor(preference: CgroupPreference): Promise<CgroupSupport> {
  if (preference === 'off')
    return { version: 'none', reason: 'turned off (CODE_AGENT_CGROUP=off)' };
  return detectRunCgroups({
    versions: preference === 'v2' || preference === 'v1' ? [preference] : ['v2', 'v1'],
  });
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String(error.code)
    : undefined;
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
  const limits: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...limitOverrides };
  const asRoot = process.getuid?.() === 0;
  const uids = createUidPool({ first: firstUid, size: maxConcurrentRuns });
  let running = 0;

  /** Decided once: detection makes and removes a probe cgroup. */
  let planned: Promise<{ support: CgroupSupport; plan: MemoryPlan }> | undefined;
  const memoryPlan = (): Promise<{ support: CgroupSupport; plan: MemoryPlan }> => {
    planned ??= cgroupSupportFor(cgroupPreference).then((support) => {
      const plan = planMemoryBound({ limits, support, sandboxed: mode === 'bubblewrap' });
      if (support.version === 'none' && cgroupPreference !== 'auto' && cgroupPreference !== 'off') {
        return {
          support,
          plan: {
            ok: false,
            bound: plan.bound,
            reason: `CODE_AGENT_CGROUP=${cgroupPreference} asks for a cgroup to bound each run's memory, but none can be had here: ${support.reason}. Nothing was run.`,
          },
        };
      }
      return { support, plan };
    });
    return planned;
  };

  const command = (
    workDir: string,
    uid: number | undefined,
    runLimits: SandboxLimits,
  ): { command: string; args: string[]; cwd?: string } => {
    if (mode === 'unsandboxed') {
      return {
        command: python,
        args: ['-I', '-c', limitLauncher(runLimits, python)],
        cwd: workDir,
      };
    }
    const args = buildBubblewrapArgs({
      workDir,
      python,
      limits: runLimits,
      extraReadOnlyPaths,
    });
    if (uid === undefined) return { command: bwrapPath, args };
    return {
      command: setprivPath,
      args: [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', bwrapPath, ...args],
    };
  };

  const unavailable = (result: BoundedProcessResult): SandboxUnavailableError => {
    const detail = result.stderr.trim().split('\n')[0] ?? '';
    return new SandboxUnavailableError(
      `bubblewrap (${bwrapPath}) could not create the sandbox${detail ? `: ${detail}` : ''}. It needs user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0; in a container, a seccomp/AppArmor profile that allows them), a work root the sandbox user can enter (CODE_AGENT_WORK_ROOT) and Python at ${python}. Nothing was run.`,
      { details: { bwrapPath, python, stderr: result.stderr.slice(0, 2000) } },
    );
  };

  /** Refuses before anything starts when a program the run needs is missing. */
  async function requireExecutable(file: string, what: string): Promise<void> {
    try {
      await access(file, constants.X_OK);
    } catch (error) {
      throw new SandboxUnavailableError(what, { cause: error });
    }
  }

  async function runInWorkDir(options: RunCodeOptions, uid: number | undefined): Promise<CodeRun> {
    if (mode === 'bubblewrap') {
      await requireExecutable(
        bwrapPath,
        `bubblewrap is not installed at ${bwrapPath} (CODE_AGENT_BWRAP_PATH), so code cannot run in a sandbox. Install it (apt-get install bubblewrap) or point CODE_AGENT_BWRAP_PATH at it. Nothing was run.`,
      );
      if (uid !== undefined) {
        await requireExecutable(
          setprivPath,
          `setpriv (util-linux) is not installed at ${setprivPath}; running as root, the agent needs it to run code as an unprivileged user. Nothing was run.`,
        );
      }
    }
    await requireExecutable(
      python,
      `Python is not available at ${python} (CODE_AGENT_PYTHON). Nothing was run.`,
    );
    const { support, plan } = await memoryPlan();
    if (!plan.ok) throw new SandboxUnavailableError(plan.reason);
    const runLimits = plan.limits;
    let cgroup: RunCgroup | undefined;
    if (support.version !== 'none') {
      try {
        cgroup = await support.create({
          memoryBytes: runLimits.runMemoryBytes,
          maxTasks: plan.bound.maxTasks ?? runLimits.maxProcesses,
        });
      } catch (error) {
        throw new SandboxUnavailableError(
          `could not make the run's cgroup ${support.version} in ${support.parents.join(', ')}: ${error instanceof Error ? error.message : String(error)}. Nothing was run.`,
          { cause: error },
        );
      }
    }
    try {
      return await runInCgroup(options, { uid, runLimits, cgroup });
    } finally {
      await cgroup?.remove();
    }
  }

  async function runInCgroup(
    { code, inputFiles = {}, signal }: RunCodeOptions,
    {
      uid,
      runLimits,
      cgroup,
    }: { uid: number | undefined; runLimits: SandboxLimits; cgroup: RunCgroup | undefined },
  ): Promise<CodeRun> {
    const workDir = await mkdtemp(path.join(workRoot, 'code-agent-run-'));
    try {
      await writeFile(path.join(workDir, PROGRAM_FILENAME), code);
      for (const [name, content] of Object.entries(inputFiles)) {
        await writeFile(path.join(workDir, path.basename(name)), content);
      }
      if (uid !== undefined) {
        // Only the run's own user may enter the work directory.
        await chown(workDir, uid, uid);
        await chmod(workDir, 0o700);
      }
      const sandboxed = command(workDir, uid, runLimits);
      // The first process joins the run's cgroup, then becomes the sandbox: nothing of the
      // program ever runs outside it.
      const { command: file, args } =
        cgroup === undefined
          ? sandboxed
          : {
              command: python,
              args: joinCgroupArgs(cgroup.procsFiles, sandboxed.command, sandboxed.args),
            };
      const { cwd } = sandboxed;
      let result: BoundedProcessResult;
      try {
        result = await runBoundedProcess({
          command: file,
          args,
          env:
            mode === 'unsandboxed' ? { PATH: '/usr/bin:/bin', HOME: workDir, LANG: 'C.UTF-8' } : {},
          ...(cwd === undefined ? {} : { cwd }),
          wallClockMs: runLimits.wallClockMs,
          maxOutputBytes: runLimits.maxOutputBytes,
          signal,
          ...(cgroup === undefined
            ? {}
            : {
                // An out-of-memory kill of one process ends the whole run at once.
                monitor: {
                  intervalMs: OOM_POLL_MS,
                  shouldStop: async () => (await cgroup.usage()).oomKills > 0,
                  onStop: () => cgroup.kill(),
                },
              }),
        });
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ENOENT' || code === 'EACCES') {
          throw new SandboxUnavailableError(
            mode === 'unsandboxed'
              ? `Python is not available at ${python} (CODE_AGENT_PYTHON). Nothing was run.`
              : `bubblewrap is not installed at ${file} (CODE_AGENT_BWRAP_PATH), so code cannot run in a sandbox. Install it (apt-get install bubblewrap) or point CODE_AGENT_BWRAP_PATH at it. Nothing was run.`,
            { cause: error },
          );
        }
        throw error;
      }
      // bwrap reports its own set-up failures on stderr with exit code 1, before the program runs.
      if (mode === 'bubblewrap' && result.exitCode === 1 && /^bwrap: /m.test(result.stderr)) {
        throw unavailable(result);
      }
      if (
        result.exitCode === JOIN_FAILED_EXIT_CODE &&
        result.stderr.startsWith(JOIN_FAILED_MARKER)
      ) {
        throw new SandboxUnavailableError(
          `${result.stderr.trim().split('\n')[0] ?? JOIN_FAILED_MARKER}. Nothing was run.`,
        );
      }
      const usage: RunCgroupUsage | undefined = await cgroup?.usage();
      const findings = { runMemoryExceeded: (usage?.oomKills ?? 0) > 0 };
      const exclude = new Set([
        PROGRAM_FILENAME,
        ...Object.keys(inputFiles).map((name) => path.basename(name)),
      ]);
      const { files, skipped } = await collectFiles({ workDir, exclude });
      const outcome = classifyOutcome(result, findings);
      return {
        outcome,
        exitCode:
          result.exitCode !== null && signalNumberOf(result) === undefined ? result.exitCode : null,
        signal: signalNumberOf(result),
        stdout: result.stdout,
        stderr: result.stderr,
        stdoutTruncated: result.stdoutTruncated,
        stderrTruncated: result.stderrTruncated,
        durationMs: result.durationMs,
        files,
        skippedFiles: skipped,
        limitMessage: describeOutcome(outcome, runLimits, findings),
        mode,
        memory: {
          enforcement: cgroup === undefined ? 'per-process' : `cgroup-${cgroup.version}`,
          limitBytes: runLimits.runMemoryBytes,
          peakBytes: usage?.peakBytes ?? null,
        },
      };
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

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
        return await runInWorkDir(options, uid);
      } finally {
        running -= 1;
        if (uid !== undefined) uids.release(uid);
      }
    },
    async check() {
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
    },
  };
  return sandbox;
}
