import type { SkippedFile, WrittenFile } from './collect-files';
import type { MemoryBound, MemoryEnforcement } from './memory-bound';
import type { RunOutcome } from './run-outcome';
import type { SandboxLimits } from './sandbox-limits';

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

/**
 * A file the step was given (a file part of its input message), for the program to read at
 * `/data/<name>`. The name is already clean (`readDataFiles`): a base name, no leading dot.
 */
export interface DataFile {
  name: string;
  mediaType: string;
  bytes: Buffer;
}

/** What a run is given. */
export interface RunCodeOptions {
  /** The Python program. */
  code: string;
  /** More files for the work directory (name → content), e.g. `inputs.json`. */
  inputFiles?: Readonly<Record<string, string>>;
  /**
   * The step's own files, written into a fresh directory of the run and mounted read-only at
   * `/data` (unsandboxed: the directory in `DATA_DIR`). None: there is no `/data`.
   */
  dataFiles?: readonly DataFile[];
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

/** Where and how runs start: `createSandbox`'s options with their defaults applied. */
export interface SandboxSetup {
  mode: SandboxMode;
  bwrapPath: string;
  /** The Python inside the sandbox. */
  python: string;
  setprivPath: string;
  /** More host paths mounted read-only. */
  extraReadOnlyPaths: readonly string[];
  /** Where work directories are made. */
  workRoot: string;
}
