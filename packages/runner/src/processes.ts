import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** How a process ended. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A process the runner started, detached in its own process group. */
export interface StartedProcess {
  readonly pid: number;
  /** Size of the log file before the process wrote to it. */
  readonly logOffset: number;
  /** How it ended, once it has (only while this runner is alive to see it). */
  readonly exitInfo: () => ExitInfo | undefined;
  /** Resolves when it ends. */
  readonly exited: Promise<ExitInfo>;
}

/** Options for {@link startDetached}. */
export interface StartDetachedOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** stdout and stderr are appended here. */
  logFile: string;
}

/**
 * Starts a process in its own process group (so it survives the runner and can be signalled
 * as a group), stdout and stderr appended to `logFile`. Rejects if it cannot be started at all
 * (e.g. the executable does not exist: `error.code === 'ENOENT'`).
 */
export function startDetached({
  command,
  args,
  cwd,
  env,
  logFile,
}: StartDetachedOptions): Promise<StartedProcess> {
  mkdirSync(path.dirname(logFile), { recursive: true });
  const fd = openSync(logFile, 'a');
  const logOffset = fstatSync(fd).size;
  let child: ChildProcess;
  try {
    child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', fd, fd] });
  } finally {
    // The child has its own copy of the descriptor.
    closeSync(fd);
  }
  let exit: ExitInfo | undefined;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => {
      child.removeListener('error', reject);
      // A later error (e.g. kill failing) must not crash the runner.
      child.on('error', () => undefined);
      child.unref();
      const pid = child.pid;
      if (pid === undefined) {
        reject(new Error(`${command} started without a pid`));
        return;
      }
      resolve({ pid, logOffset, exitInfo: () => exit, exited });
    });
  });
}

function signalWorks(target: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when a process with this pid exists. */
export function isProcessAlive(pid: number): boolean {
  return signalWorks(pid, 0);
}

/** The command line of a process, where the OS exposes it (`/proc` on Linux). */
export function processCommandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return undefined;
  }
}

/** The fields of `/proc/<pid>/stat` after the command name: state, ppid, pgrp, … */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** A process's state letter (`Z` = zombie), where the OS exposes it. */
function processState(pid: number): string | undefined {
  return procStat(pid)?.[0];
}

/**
 * How many members of process group `pgid` are alive (zombies do not count), or `undefined`
 * without `/proc`. Zombies matter: in a container whose PID 1 does not reap orphans, a stopped
 * service stays a zombie forever, and `kill(-pgid, 0)` keeps succeeding.
 */
function liveGroupMembers(pgid: number): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  let live = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = procStat(Number(entry));
    if (fields !== undefined && fields[2] === String(pgid) && fields[0] !== 'Z') live += 1;
  }
  return live;
}

/** True when `pid` exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  return isProcessAlive(pid) && processState(pid) !== 'Z';
}

/** True while any member of process group `pgid` is alive. */
export function isGroupAlive(pgid: number): boolean {
  const members = liveGroupMembers(pgid);
  return members === undefined ? signalWorks(-pgid, 0) : members > 0;
}

/**
 * True when `pid` is alive and, where the OS tells, its command line contains `marker` (the
 * service's entry path): a pid reused by an unrelated process is not ours to signal.
 */
export function isOwnProcess(pid: number, marker: string): boolean {
  if (!isRunning(pid)) return false;
  const commandLine = processCommandLine(pid);
  return commandLine === undefined || commandLine.includes(marker);
}

/** How {@link stopProcessGroup} went. */
export type StopOutcome = 'stopped' | 'killed' | 'not-running';

/** Options for {@link stopProcessGroup}. */
export interface StopProcessGroupOptions {
  /** The group leader's pid (= the group id of a detached process). */
  pid: number;
  /** How long to wait after SIGTERM before SIGKILL. @default 10000 */
  graceMs?: number;
  /** How often to look. @default 100 */
  pollMs?: number;
}

/**
 * Sends SIGTERM (and SIGCONT, for a stopped process) to the whole process group, waits up to
 * `graceMs` for it to end, then sends SIGKILL.
 */
export async function stopProcessGroup({
  pid,
  graceMs = 10_000,
  pollMs = 100,
}: StopProcessGroupOptions): Promise<StopOutcome> {
  if (signalWorks(-pid, 'SIGTERM')) {
    // A stopped process (SIGSTOP, Ctrl-Z) only handles SIGTERM once it runs again.
    signalWorks(-pid, 'SIGCONT');
  } else {
    // Not a group leader (or already gone): signal the process itself.
    if (!signalWorks(pid, 'SIGTERM')) return 'not-running';
    signalWorks(pid, 'SIGCONT');
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isGroupAlive(pid) && !isRunning(pid)) return 'stopped';
    await sleep(pollMs);
  }
  signalWorks(-pid, 'SIGKILL');
  signalWorks(pid, 'SIGKILL');
  const killDeadline = Date.now() + 2000;
  while (Date.now() < killDeadline && (isGroupAlive(pid) || isRunning(pid))) await sleep(pollMs);
  return 'killed';
}
