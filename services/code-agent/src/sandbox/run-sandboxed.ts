import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { FoundMemoryPlan } from './find-memory-plan';
import type { RunCgroup } from './run-cgroup';
import { runProgram } from './run-program';
import type { CodeRun, RunCodeOptions, SandboxSetup } from './sandbox';
import { SandboxUnavailableError } from './sandbox-unavailable-error';

/** Options for {@link runSandboxed}. */
export interface RunSandboxedOptions {
  /** The unprivileged user id the run switches to (the agent runs as root), or undefined. */
  uid: number | undefined;
  /** The memory plan, found once per sandbox (asked only after the programs are found). */
  memoryPlan: () => Promise<FoundMemoryPlan>;
}

/** Refuses before anything starts when a program the run needs is missing. */
async function requireExecutable(file: string, what: string): Promise<void> {
  try {
    await access(file, constants.X_OK);
  } catch (error) {
    throw new SandboxUnavailableError(what, { cause: error });
  }
}

async function requireExecutables(
  { mode, bwrapPath, setprivPath, python }: SandboxSetup,
  uid: number | undefined,
): Promise<void> {
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
}

/**
 * Runs one program the way the sandbox's memory plan says: refuses (SandboxUnavailableError,
 * nothing ran) when bubblewrap, setpriv or Python is missing or the plan lets no code run; else
 * makes the run's own cgroup when there is cgroup support, runs the program in it
 * (`runProgram`) and removes the cgroup afterwards.
 *
 * @example
 * const run = await runSandboxed(setup, { code: 'print(1)' }, { uid: undefined, memoryPlan });
 */
export async function runSandboxed(
  setup: SandboxSetup,
  options: RunCodeOptions,
  { uid, memoryPlan }: RunSandboxedOptions,
): Promise<CodeRun> {
  await requireExecutables(setup, uid);
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
    return await runProgram(setup, options, { uid, runLimits, cgroup });
  } finally {
    await cgroup?.remove();
  }
}
