import { buildBubblewrapArgs } from './bubblewrap-args';
import { limitLauncher } from './limit-launcher';
import type { SandboxSetup } from './sandbox';
import type { SandboxLimits } from './sandbox-limits';

/** Options for {@link sandboxCommand}. */
export interface SandboxCommandOptions {
  /** The run's work directory on the host. */
  workDir: string;
  /** The unprivileged user id to switch to (the agent runs as root), or undefined. */
  uid: number | undefined;
  limits: SandboxLimits;
}

/** A process to start. */
export interface SandboxCommand {
  command: string;
  args: string[];
  cwd?: string;
}

/**
 * The process that runs the program: bubblewrap (behind `setpriv` when a user id is given), or
 * unsandboxed, Python with the limit launcher in the work directory.
 *
 * @example
 * const { command, args } = sandboxCommand(setup, { workDir, uid: undefined, limits });
 */
export function sandboxCommand(
  setup: SandboxSetup,
  { workDir, uid, limits }: SandboxCommandOptions,
): SandboxCommand {
  const { mode, python, bwrapPath, setprivPath, extraReadOnlyPaths } = setup;
  if (mode === 'unsandboxed') {
    return {
      command: python,
      args: ['-I', '-c', limitLauncher(limits, python)],
      cwd: workDir,
    };
  }
  const args = buildBubblewrapArgs({ workDir, python, limits, extraReadOnlyPaths });
  if (uid === undefined) return { command: bwrapPath, args };
  return {
    command: setprivPath,
    args: [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', bwrapPath, ...args],
  };
}
