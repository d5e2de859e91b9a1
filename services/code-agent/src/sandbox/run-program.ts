import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { collectFiles } from './collect-files';
import { PROGRAM_FILENAME } from './limit-launcher';
import { runBoundedProcess, type BoundedProcessResult } from './run-bounded-process';
import {
  joinCgroupArgs,
  JOIN_FAILED_EXIT_CODE,
  JOIN_FAILED_MARKER,
  type RunCgroup,
  type RunCgroupUsage,
} from './run-cgroup';
import { classifyOutcome, describeOutcome, signalNumberOf } from './run-outcome';
import type { CodeRun, RunCodeOptions, SandboxSetup } from './sandbox';
import { sandboxCommand } from './sandbox-command';
import type { SandboxLimits } from './sandbox-limits';
import { SandboxUnavailableError } from './sandbox-unavailable-error';

/** How often a running program's cgroup is checked for an out-of-memory kill. */
const OOM_POLL_MS = 100;

/** Where one run happens. */
export interface RunPlace {
  /** The unprivileged user id the run switches to (the agent runs as root), or undefined. */
  uid: number | undefined;
  /** The limits of this run (the memory plan's). */
  runLimits: SandboxLimits;
  /** The run's own cgroup, or undefined (the per-process fallback). */
  cgroup: RunCgroup | undefined;
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String(error.code)
    : undefined;
}

function bwrapFailed(
  { bwrapPath, python }: SandboxSetup,
  result: BoundedProcessResult,
): SandboxUnavailableError {
  const detail = result.stderr.trim().split('\n')[0] ?? '';
  return new SandboxUnavailableError(
    `bubblewrap (${bwrapPath}) could not create the sandbox${detail ? `: ${detail}` : ''}. It needs user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0; in a container, a seccomp/AppArmor profile that allows them), a work root the sandbox user can enter (CODE_AGENT_WORK_ROOT) and Python at ${python}. Nothing was run.`,
    { details: { bwrapPath, python, stderr: result.stderr.slice(0, 2000) } },
  );
}

/** Writes the program and its input files into the work directory, closed to other users. */
async function fillWorkDir(
  workDir: string,
  {
    code,
    inputFiles,
    uid,
  }: { code: string; inputFiles: Readonly<Record<string, string>>; uid: number | undefined },
): Promise<void> {
  await writeFile(path.join(workDir, PROGRAM_FILENAME), code);
  for (const [name, content] of Object.entries(inputFiles)) {
    await writeFile(path.join(workDir, path.basename(name)), content);
  }
  if (uid !== undefined) {
    // Only the run's own user may enter the work directory.
    await chown(workDir, uid, uid);
    await chmod(workDir, 0o700);
  }
}

/**
 * Starts the sandbox on the work directory and waits for it to end, within the run's limits.
 * Rejects with a SandboxUnavailableError when the sandbox could not start (nothing ran).
 */
async function startProgram(
  setup: SandboxSetup,
  { workDir, place, signal }: { workDir: string; place: RunPlace; signal: AbortSignal | undefined },
): Promise<BoundedProcessResult> {
  const { mode, python } = setup;
  const { uid, runLimits, cgroup } = place;
  const sandboxed = sandboxCommand(setup, { workDir, uid, limits: runLimits });
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
      env: mode === 'unsandboxed' ? { PATH: '/usr/bin:/bin', HOME: workDir, LANG: 'C.UTF-8' } : {},
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
    throw bwrapFailed(setup, result);
  }
  if (result.exitCode === JOIN_FAILED_EXIT_CODE && result.stderr.startsWith(JOIN_FAILED_MARKER)) {
    throw new SandboxUnavailableError(
      `${result.stderr.trim().split('\n')[0] ?? JOIN_FAILED_MARKER}. Nothing was run.`,
    );
  }
  return result;
}

/**
 * Runs one program in a fresh work directory (under `workRoot`, removed afterwards once the files
 * it holds are read) in the given place: its user, its limits, its cgroup. What the program does
 * is reported in the result; rejects only when the sandbox could not start.
 *
 * @example
 * const run = await runProgram(setup, { code: 'print(1)' }, { uid: undefined, runLimits, cgroup: undefined });
 */
export async function runProgram(
  setup: SandboxSetup,
  { code, inputFiles = {}, signal }: RunCodeOptions,
  place: RunPlace,
): Promise<CodeRun> {
  const { runLimits, cgroup } = place;
  const workDir = await mkdtemp(path.join(setup.workRoot, 'code-agent-run-'));
  try {
    await fillWorkDir(workDir, { code, inputFiles, uid: place.uid });
    const result = await startProgram(setup, { workDir, place, signal });
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
      mode: setup.mode,
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
