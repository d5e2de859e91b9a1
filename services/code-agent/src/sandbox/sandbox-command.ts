import { buildBubblewrapArgs, programEnvironment } from './bubblewrap-args';
import type { FontCache } from './font-cache';
import { limitLauncher } from './limit-launcher';
import type { SandboxSetup } from './sandbox';
import type { SandboxLimits } from './sandbox-limits';

/** Options for {@link sandboxCommand}. */
export interface SandboxCommandOptions {
  /** The run's work directory on the host. */
  workDir: string;
  /**
   * The run's scratch directory on the host, for the unsandboxed mode (caches, `TMPDIR`); the
   * sandbox has its own `/tmp`.
   */
  scratchDir: string;
  /** The host directory with the step's own files, when it has any. */
  dataDir?: string | undefined;
  /** matplotlib's shared font cache (bubblewrap binds it; unsandboxed runs get a copy). */
  fontCache?: FontCache | undefined;
  /** The unprivileged user id to switch to (the agent runs as root), or undefined. */
  uid: number | undefined;
  limits: SandboxLimits;
}

/** A process to start. */
export interface SandboxCommand {
  command: string;
  args: string[];
  cwd?: string;
  /** Its environment (bubblewrap clears it and sets the program's own). */
  env: Record<string, string>;
}

/**
 * The process that runs the program: bubblewrap (behind `setpriv` when a user id is given), or
 * unsandboxed, Python with the limit launcher in the work directory, the data directory named by
 * `DATA_DIR` and caches in the scratch directory.
 *
 * @example
 * const { command, args, env } = sandboxCommand(setup, { workDir, scratchDir, uid: undefined, limits });
 */
export function sandboxCommand(
  setup: SandboxSetup,
  { workDir, scratchDir, dataDir, fontCache, uid, limits }: SandboxCommandOptions,
): SandboxCommand {
  const { mode, python, bwrapPath, setprivPath, extraReadOnlyPaths } = setup;
  if (mode === 'unsandboxed') {
    return {
      command: python,
      args: ['-I', '-c', limitLauncher(limits, python)],
      cwd: workDir,
      env: {
        ...programEnvironment({ home: workDir, scratch: scratchDir, dataDir }),
        PATH: '/usr/bin:/bin',
      },
    };
  }
  const args = buildBubblewrapArgs({
    workDir,
    python,
    limits,
    extraReadOnlyPaths,
    dataDir,
    fontCache,
  });
  if (uid === undefined) return { command: bwrapPath, args, env: {} };
  return {
    command: setprivPath,
    args: [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', bwrapPath, ...args],
    env: {},
  };
}
