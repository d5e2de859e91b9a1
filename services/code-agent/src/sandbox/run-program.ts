import { chmod, chown, copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { collectFiles } from './collect-files';
import { matplotlibDir } from './bubblewrap-args';
import { writeDataDir } from './data-dir';
import { matplotlibFontCache, type FontCache } from './font-cache';
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
import type { CodeRun, DataFile, RunCodeOptions, SandboxSetup } from './sandbox';
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

/** The directories of one run, all below its own fresh run directory. */
interface RunDirs {
  /** Mounted read-write at `/work`: the program, its inputs and the files it writes. */
  workDir: string;
  /** Mounted read-only at `/data`: the step's own files; undefined without any. */
  dataDir: string | undefined;
  /** Caches and temporary files of an unsandboxed run (the sandbox has its own `/tmp`). */
  scratchDir: string;
}

/**
 * Lays out a run's directory: the work directory with the program and its input files, the data
 * directory with the step's files (read-only), and for an unsandboxed run a scratch directory.
 * All are closed to other users; when the run switches to its own user they are that user's.
 */
async function fillRunDir(
  runDir: string,
  {
    code,
    inputFiles,
    dataFiles,
    uid,
    mode,
    fontCache,
  }: {
    code: string;
    inputFiles: Readonly<Record<string, string>>;
    dataFiles: readonly DataFile[];
    uid: number | undefined;
    mode: SandboxSetup['mode'];
    fontCache: FontCache | undefined;
  },
): Promise<RunDirs> {
  const dirs: RunDirs = {
    workDir: path.join(runDir, 'work'),
    dataDir: dataFiles.length > 0 ? path.join(runDir, 'data') : undefined,
    scratchDir: path.join(runDir, 'scratch'),
  };
  await mkdir(dirs.workDir, { mode: 0o700 });
  await writeFile(path.join(dirs.workDir, PROGRAM_FILENAME), code);
  for (const [name, content] of Object.entries(inputFiles)) {
    await writeFile(path.join(dirs.workDir, path.basename(name)), content);
  }
  if (dirs.dataDir !== undefined) await writeDataDir(dirs.dataDir, dataFiles, uid);
  if (mode === 'unsandboxed') {
    await mkdir(dirs.scratchDir, { mode: 0o700 });
    // The sandbox binds the shared font cache; an unsandboxed run gets its own copy.
    if (fontCache !== undefined) {
      const target = matplotlibDir(dirs.scratchDir);
      await mkdir(target, { mode: 0o700 });
      for (const name of fontCache.files) {
        await copyFile(path.join(fontCache.dir, name), path.join(target, name));
      }
    }
  }
  if (uid !== undefined) {
    // Only the run's own user may enter the run's directories.
    await chown(runDir, uid, uid);
    await chown(dirs.workDir, uid, uid);
  }
  await chmod(runDir, 0o700);
  await chmod(dirs.workDir, 0o700);
  return dirs;
}

/**
 * Starts the sandbox on the work directory and waits for it to end, within the run's limits.
 * Rejects with a SandboxUnavailableError when the sandbox could not start (nothing ran).
 */
async function startProgram(
  setup: SandboxSetup,
  {
    dirs,
    fontCache,
    place,
    signal,
  }: {
    dirs: RunDirs;
    fontCache: FontCache | undefined;
    place: RunPlace;
    signal: AbortSignal | undefined;
  },
): Promise<BoundedProcessResult> {
  const { mode, python } = setup;
  const { uid, runLimits, cgroup } = place;
  const sandboxed = sandboxCommand(setup, { ...dirs, fontCache, uid, limits: runLimits });
  // The first process joins the run's cgroup, then becomes the sandbox: nothing of the
  // program ever runs outside it.
  const { command: file, args } =
    cgroup === undefined
      ? sandboxed
      : {
          command: python,
          args: joinCgroupArgs(cgroup.procsFiles, sandboxed.command, sandboxed.args),
        };
  const { cwd, env } = sandboxed;
  let result: BoundedProcessResult;
  try {
    result = await runBoundedProcess({
      command: file,
      args,
      env,
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
 * Runs one program in a fresh run directory (under `workRoot`, removed afterwards once the files
 * of its work directory are read) in the given place: its user, its limits, its cgroup. The
 * step's data files, if any, are in the run's data directory, mounted read-only at `/data`. What
 * the program does is reported in the result; rejects only when the sandbox could not start (or a
 * data file name is not a plain file name: ValidationError, nothing ran).
 *
 * @example
 * const run = await runProgram(setup, { code: 'print(1)' }, { uid: undefined, runLimits, cgroup: undefined });
 */
export async function runProgram(
  setup: SandboxSetup,
  { code, inputFiles = {}, dataFiles = [], signal }: RunCodeOptions,
  place: RunPlace,
): Promise<CodeRun> {
  const { runLimits, cgroup } = place;
  const fontCache = await matplotlibFontCache(setup.python);
  const runDir = await mkdtemp(path.join(setup.workRoot, 'code-agent-run-'));
  try {
    const dirs = await fillRunDir(runDir, {
      code,
      inputFiles,
      dataFiles,
      uid: place.uid,
      mode: setup.mode,
      fontCache,
    });
    const { workDir } = dirs;
    const result = await startProgram(setup, { dirs, fontCache, place, signal });
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
    // The data directory is read-only (0500): rm needs to enter and unlink, so open it first.
    await chmod(path.join(runDir, 'data'), 0o700).catch(() => undefined);
    await rm(runDir, { recursive: true, force: true });
  }
}
