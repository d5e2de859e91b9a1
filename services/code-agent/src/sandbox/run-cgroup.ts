import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The cgroup versions a run can be bounded with. */
export type CgroupVersion = 'v2' | 'v1';

/** What the agent can bound runs with, found once at start-up by {@link detectRunCgroups}. */
export type CgroupSupport = CgroupsAvailable | { version: 'none'; reason: string };

/** Run cgroups can be made: one per run, below `parents`. */
export interface CgroupsAvailable {
  version: CgroupVersion;
  /** The directories the run cgroups are made in (v2: one; v1: the memory one, the pids one). */
  parents: readonly string[];
  /** Makes a run's cgroup with these limits; nothing is in it yet. */
  create(limits: RunCgroupLimits): Promise<RunCgroup>;
}

/** The limits of one run's cgroup. */
export interface RunCgroupLimits {
  /** All processes of the run together (memory.max / memory.limit_in_bytes); swap off. */
  memoryBytes: number;
  /** Processes and threads of the run together, including bubblewrap's (pids.max). */
  maxTasks: number;
}

/** What a run's cgroup measured. */
export interface RunCgroupUsage {
  /** Processes the kernel's OOM killer ended because the run was over its memory limit. */
  oomKills: number;
  /** The most memory the run used at once, in bytes, where the kernel reports it. */
  peakBytes: number | undefined;
}

/** One run's cgroup. */
export interface RunCgroup {
  readonly version: CgroupVersion;
  /** Its directories (v2: one; v1: memory, pids). */
  readonly paths: readonly string[];
  /** The `cgroup.procs` files a process writes its pid to, to join it (before it starts the program). */
  readonly procsFiles: readonly string[];
  usage(): Promise<RunCgroupUsage>;
  /** SIGKILLs every process in it, and waits until none is left (a few seconds at most). */
  kill(): Promise<void>;
  /** Kills what is left and removes it. Never rejects. */
  remove(): Promise<void>;
}

/** Options for {@link detectRunCgroups}. */
export interface DetectRunCgroupsOptions {
  /** Which versions to try, in order. @default ['v2', 'v1'] */
  versions?: readonly CgroupVersion[];
  /** @default '/proc/self/cgroup' */
  procCgroupFile?: string;
  /** @default '/proc/self/mountinfo' */
  mountInfoFile?: string;
}

/** Run cgroups are named `code-agent-run-<agent pid>-<random>`, so leftovers can be recognised. */
export const RUN_CGROUP_PREFIX = 'code-agent-run-';
/** On cgroup v2, where the agent's own processes move so that its cgroup may have children with controllers. */
export const SERVICE_CGROUP_NAME = 'code-agent-service';

const REQUIRED_CONTROLLERS = ['memory', 'pids'] as const;

/** One line of `/proc/self/cgroup`: `<id>:<controllers>:<path>`. */
export interface CgroupMembership {
  /** Empty for cgroup v2 (the `0::` line). */
  controllers: string[];
  path: string;
}

/** One cgroup mount from `/proc/self/mountinfo`. */
export interface CgroupMount {
  version: CgroupVersion;
  /** The cgroup that is the mount's root (not `/` for a bind mount of a sub-tree). */
  root: string;
  mountPoint: string;
  /** v1: the controllers of the hierarchy. */
  controllers: string[];
}

/** Parses `/proc/self/cgroup`. */
export function parseProcCgroup(text: string): CgroupMembership[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [, controllers = '', ...rest] = line.split(':');
      return {
        controllers: controllers === '' ? [] : controllers.split(','),
        path: rest.join(':'),
      };
    });
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
}

/** The cgroup mounts listed in `/proc/self/mountinfo`. */
export function parseCgroupMounts(text: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of text.split('\n')) {
    const separator = line.indexOf(' - ');
    if (separator < 0) continue;
    const fields = line.slice(0, separator).split(' ');
    const [fsType = '', , superOptions = ''] = line.slice(separator + 3).split(' ');
    const root = unescapeMountField(fields[3] ?? '');
    const mountPoint = unescapeMountField(fields[4] ?? '');
    if (fsType === 'cgroup2') mounts.push({ version: 'v2', root, mountPoint, controllers: [] });
    if (fsType === 'cgroup') {
      mounts.push({ version: 'v1', root, mountPoint, controllers: superOptions.split(',') });
    }
  }
  return mounts;
}

/** The directory of cgroup `cgroupPath` under `mount`, or undefined when the mount does not show it. */
export function cgroupDirectory(mount: CgroupMount, cgroupPath: string): string | undefined {
  let relative: string;
  if (mount.root === '/') relative = cgroupPath;
  else if (cgroupPath === mount.root) relative = '/';
  else if (cgroupPath.startsWith(`${mount.root}/`)) relative = cgroupPath.slice(mount.root.length);
  else return undefined;
  return path.resolve(mount.mountPoint, `.${relative}`);
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String(error.code)
    : undefined;
}

function describeError(error: unknown): string {
  return errorCode(error) ?? (error instanceof Error ? error.message : String(error));
}

const sleep = (milliseconds: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Writes a control file; `optional` ones may be missing (an older kernel, swap accounting off). */
async function writeControl(directory: string, file: string, value: string): Promise<void> {
  await writeFile(path.join(directory, file), value);
}

async function writeOptionalControl(directory: string, file: string, value: string): Promise<void> {
  try {
    await writeControl(directory, file, value);
  } catch (error) {
    const code = errorCode(error);
    // Missing (no swap accounting, no memory.oom.group) or refused as invalid: the limit still holds.
    if (code !== 'ENOENT' && code !== 'EINVAL' && code !== 'EACCES') throw error;
  }
}

async function readNumber(file: string): Promise<number | undefined> {
  try {
    const value = Number((await readFile(file, 'utf8')).trim());
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `key value` lines (memory.events, memory.oom_control, pids.events) → the value of `key`. */
async function readKeyed(file: string, key: string): Promise<number> {
  try {
    const text = await readFile(file, 'utf8');
    const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

async function pidsIn(directory: string): Promise<number[]> {
  try {
    return (await readFile(path.join(directory, 'cgroup.procs'), 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** SIGKILLs every process listed in the directories until none is left, for up to `waitMs`. */
async function killAll(directories: readonly string[], waitMs = 5_000): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const pids = (await Promise.all(directories.map(pidsIn))).flat();
    if (pids.length === 0 || Date.now() > deadline) return;
    for (const pid of new Set(pids)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await sleep(20);
  }
}

/** Removes the directories, retrying while their last processes are still exiting. */
async function removeDirectories(directories: readonly string[], waitMs = 5_000): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (const directory of directories) {
    for (;;) {
      try {
        await rmdir(directory);
        break;
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ENOENT') break;
        if (code !== 'EBUSY' || Date.now() > deadline) return;
        await killAll([directory], 200);
        await sleep(20);
      }
    }
  }
}

function runCgroupName(): string {
  return `${RUN_CGROUP_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Removes empty run cgroups a crashed agent left behind (their agent's pid is gone). */
async function removeLeftovers(parents: readonly string[]): Promise<void> {
  for (const parent of parents) {
    let entries: string[];
    try {
      entries = await readdir(parent);
    } catch {
      continue;
    }
    for (const entry of entries) {
      const match = new RegExp(`^${RUN_CGROUP_PREFIX}(\\d+)-`).exec(entry);
      if (!match || Number(match[1]) === process.pid) continue;
      try {
        process.kill(Number(match[1]), 0);
        continue; // That agent is alive.
      } catch {
        // Its agent is gone.
      }
      await rmdir(path.join(parent, entry)).catch(() => undefined);
    }
  }
}

/** A run cgroup in `paths`, measured by two files of its memory controller. */
function runCgroupOf({
  version,
  paths,
  oomFile,
  peakFile,
  kill,
}: {
  version: CgroupVersion;
  paths: readonly string[];
  /** The keyed file whose `oom_kill` counts the OOM kills. */
  oomFile: string;
  /** The file with the most memory used at once. */
  peakFile: string;
  kill: () => Promise<void>;
}): RunCgroup {
  return {
    version,
    paths,
    procsFiles: paths.map((directory) => path.join(directory, 'cgroup.procs')),
    async usage() {
      return {
        oomKills: await readKeyed(oomFile, 'oom_kill'),
        peakBytes: await readNumber(peakFile),
      };
    },
    kill,
    async remove() {
      await kill().catch(() => undefined);
      await removeDirectories(paths);
    },
  };
}

function v2RunCgroup(directory: string): RunCgroup {
  return runCgroupOf({
    version: 'v2',
    paths: [directory],
    oomFile: path.join(directory, 'memory.events'),
    peakFile: path.join(directory, 'memory.peak'),
    kill: async () => {
      // cgroup.kill (Linux 5.14+) kills every process at once, forks in flight included.
      await writeControl(directory, 'cgroup.kill', '1').catch(() => undefined);
      await killAll([directory]);
    },
  });
}

function v1RunCgroup(memoryDirectory: string, pidsDirectory: string): RunCgroup {
  const paths = [memoryDirectory, pidsDirectory];
  return runCgroupOf({
    version: 'v1',
    paths,
    oomFile: path.join(memoryDirectory, 'memory.oom_control'),
    peakFile: path.join(memoryDirectory, 'memory.max_usage_in_bytes'),
    kill: () => killAll(paths),
  });
}

/** Makes a v2 run cgroup in `parent` (whose subtree has the memory and pids controllers). */
async function createV2(parent: string, limits: RunCgroupLimits): Promise<RunCgroup> {
  const directory = path.join(parent, runCgroupName());
  await mkdir(directory);
  const cgroup = v2RunCgroup(directory);
  try {
    await writeControl(directory, 'memory.max', String(limits.memoryBytes));
    await writeOptionalControl(directory, 'memory.swap.max', '0');
    // One process over the limit ends them all, not just the biggest.
    await writeOptionalControl(directory, 'memory.oom.group', '1');
    await writeControl(directory, 'pids.max', String(limits.maxTasks));
  } catch (error) {
    await cgroup.remove();
    throw error;
  }
  return cgroup;
}

async function createV1(
  memoryParent: string,
  pidsParent: string,
  limits: RunCgroupLimits,
): Promise<RunCgroup> {
  const name = runCgroupName();
  const memoryDirectory = path.join(memoryParent, name);
  const pidsDirectory = path.join(pidsParent, name);
  await mkdir(memoryDirectory);
  const cgroup = v1RunCgroup(memoryDirectory, pidsDirectory);
  try {
    await mkdir(pidsDirectory);
    await writeControl(memoryDirectory, 'memory.limit_in_bytes', String(limits.memoryBytes));
    // memory + swap = memory: no swap (the file exists only with swap accounting).
    await writeOptionalControl(
      memoryDirectory,
      'memory.memsw.limit_in_bytes',
      String(limits.memoryBytes),
    );
    await writeOptionalControl(memoryDirectory, 'memory.swappiness', '0');
    await writeControl(pidsDirectory, 'pids.max', String(limits.maxTasks));
  } catch (error) {
    await cgroup.remove();
    throw error;
  }
  return cgroup;
}

/** A small run cgroup made and removed again: proves the limits can be set here. */
async function probe(create: () => Promise<RunCgroup>): Promise<void> {
  const cgroup = await create();
  await cgroup.remove();
  for (const directory of cgroup.paths) {
    try {
      await readdir(directory);
    } catch {
      continue;
    }
    throw new Error(`could not remove the probe cgroup ${directory}`);
  }
}

const PROBE_LIMITS: RunCgroupLimits = { memoryBytes: 64 * 1024 * 1024, maxTasks: 8 };

/** cgroup v2 with the memory and pids controllers for children of the agent's cgroup. */
async function detectV2(
  memberships: CgroupMembership[],
  mounts: CgroupMount[],
): Promise<CgroupsAvailable> {
  const own = memberships.find((membership) => membership.controllers.length === 0);
  if (!own) throw new Error('the agent is in no cgroup v2');
  const directory = mounts
    .filter((mount) => mount.version === 'v2')
    .map((mount) => cgroupDirectory(mount, own.path))
    .find((candidate) => candidate !== undefined);
  if (directory === undefined) throw new Error(`its cgroup v2 ${own.path} is not mounted here`);
  const offered = (await readFile(path.join(directory, 'cgroup.controllers'), 'utf8'))
    .trim()
    .split(/\s+/);
  const missing = REQUIRED_CONTROLLERS.filter((controller) => !offered.includes(controller));
  if (missing.length > 0) {
    throw new Error(
      `${directory} offers no ${missing.join(' and ')} controller (offered: ${offered.join(' ') || 'none'}); they are not delegated to it`,
    );
  }
  const enable = (): Promise<void> =>
    writeControl(
      directory,
      'cgroup.subtree_control',
      REQUIRED_CONTROLLERS.map((c) => `+${c}`).join(' '),
    );
  const enabled = (await readFile(path.join(directory, 'cgroup.subtree_control'), 'utf8'))
    .trim()
    .split(/\s+/);
  if (!REQUIRED_CONTROLLERS.every((controller) => enabled.includes(controller))) {
    try {
      await enable();
    } catch (error) {
      if (errorCode(error) !== 'EBUSY') throw error;
      // A cgroup with processes cannot hand controllers to children ("no internal processes"):
      // its processes (the agent, and whatever shares its cgroup, e.g. an init) move to a leaf
      // first, as container runtimes do. They stay below the same cgroup and its limits.
      const leaf = path.join(directory, SERVICE_CGROUP_NAME);
      await mkdir(leaf).catch((mkdirError: unknown) => {
        if (errorCode(mkdirError) !== 'EEXIST') throw mkdirError;
      });
      for (const pid of await pidsIn(directory)) {
        await writeControl(leaf, 'cgroup.procs', String(pid)).catch(() => undefined);
      }
      await enable();
    }
  }
  await removeLeftovers([directory]);
  await probe(() => createV2(directory, PROBE_LIMITS));
  return {
    version: 'v2',
    parents: [directory],
    create: (limits) => createV2(directory, limits),
  };
}

/** cgroup v1 memory and pids hierarchies, with children made below the agent's own cgroups. */
async function detectV1(
  memberships: CgroupMembership[],
  mounts: CgroupMount[],
): Promise<CgroupsAvailable> {
  const directories = REQUIRED_CONTROLLERS.map((controller) => {
    const own = memberships.find((membership) => membership.controllers.includes(controller));
    if (!own) throw new Error(`the agent is in no cgroup v1 ${controller} hierarchy`);
    const directory = mounts
      .filter((mount) => mount.version === 'v1' && mount.controllers.includes(controller))
      .map((mount) => cgroupDirectory(mount, own.path))
      .find((candidate) => candidate !== undefined);
    if (directory === undefined) {
      throw new Error(`the cgroup v1 ${controller} hierarchy is not mounted here`);
    }
    return directory;
  });
  const [memoryParent = '', pidsParent = ''] = directories;
  await removeLeftovers(directories);
  await probe(() => createV1(memoryParent, pidsParent, PROBE_LIMITS));
  return {
    version: 'v1',
    parents: directories,
    create: (limits) => createV1(memoryParent, pidsParent, limits),
  };
}

/**
 * Finds out how runs can be bounded as a whole, once at start-up: cgroup v2 with the memory and
 * pids controllers available below the agent's own cgroup (enabling them there; a cgroup that has
 * processes moves them to a `code-agent-service` leaf first), else cgroup v1 memory and pids
 * hierarchies with children below the agent's own cgroups. Each is proven by making a probe
 * cgroup with limits and removing it. Never rejects: `{ version: 'none', reason }` says why
 * neither works.
 *
 * @example
 * const support = await detectRunCgroups();
 * if (support.version !== 'none') {
 *   const cgroup = await support.create({ memoryBytes: 512 << 20, maxTasks: 34 });
 * }
 */
export async function detectRunCgroups({
  versions = ['v2', 'v1'],
  procCgroupFile = '/proc/self/cgroup',
  mountInfoFile = '/proc/self/mountinfo',
}: DetectRunCgroupsOptions = {}): Promise<CgroupSupport> {
  let memberships: CgroupMembership[];
  let mounts: CgroupMount[];
  try {
    memberships = parseProcCgroup(await readFile(procCgroupFile, 'utf8'));
    mounts = parseCgroupMounts(await readFile(mountInfoFile, 'utf8'));
  } catch (error) {
    return { version: 'none', reason: `cannot read the agent's cgroups (${describeError(error)})` };
  }
  const reasons: string[] = [];
  for (const version of versions) {
    try {
      return version === 'v2'
        ? await detectV2(memberships, mounts)
        : await detectV1(memberships, mounts);
    } catch (error) {
      const detail =
        error instanceof Error && errorCode(error) === undefined
          ? error.message
          : `${describeError(error)}${error instanceof Error && 'path' in error ? ` on ${String(error.path)}` : ''}`;
      reasons.push(`cgroup ${version}: ${detail}`);
    }
  }
  return { version: 'none', reason: reasons.join('; ') };
}

/** What the join step prints, before the reason, when it cannot enter the run's cgroup. */
export const JOIN_FAILED_MARKER = 'code-agent: cannot join the run cgroup';
/** Its exit code then. */
export const JOIN_FAILED_EXIT_CODE = 125;

/**
 * The arguments that make `python` join a run's cgroup and then become `command`: a few lines of
 * Python write its own pid to each `cgroup.procs` and `exec` the command, so the sandbox and
 * everything in it start inside the cgroup, with no moment outside it. When joining fails it
 * exits with {@link JOIN_FAILED_EXIT_CODE} and says why on stderr; nothing else has run then.
 *
 * @example
 * spawn(python, joinCgroupArgs(cgroup.procsFiles, '/usr/bin/bwrap', bwrapArgs));
 */
export function joinCgroupArgs(
  procsFiles: readonly string[],
  command: string,
  args: readonly string[],
): string[] {
  const script = [
    'import os, sys',
    'a = sys.argv[1:]',
    "i = a.index('--')",
    'for f in a[:i]:',
    '    try:',
    '        fd = os.open(f, os.O_WRONLY)',
    '        os.write(fd, str(os.getpid()).encode())',
    '        os.close(fd)',
    '    except OSError as e:',
    `        sys.stderr.write('${JOIN_FAILED_MARKER} %s: %s\\n' % (f, e))`,
    `        os._exit(${JOIN_FAILED_EXIT_CODE})`,
    'os.execv(a[i + 1], a[i + 1:])',
  ].join('\n');
  return ['-I', '-S', '-c', script, ...procsFiles, '--', command, ...args];
}
