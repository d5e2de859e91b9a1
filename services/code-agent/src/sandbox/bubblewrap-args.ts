import { limitLauncher } from './limit-launcher';
import type { SandboxLimits } from './sandbox-limits';

/** Where the work directory appears inside the sandbox. */
export const SANDBOX_WORK_DIR = '/work';

/**
 * The host's system directories the sandbox sees, read-only: programs and libraries, nothing
 * else. `/root`, `/home`, `/var`, `/srv`, `/opt`, `/mnt` and the host's `/tmp` stay invisible. On a
 * merged-/usr system `/bin` and `/lib` are symlinks into `/usr`; binding them works either way.
 */
export const SYSTEM_READ_ONLY_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64'];

/**
 * The few files of `/etc` a Python program may look at (time zone, MIME types, the user list,
 * the dynamic linker cache, CA certificates). The rest of `/etc` (keys, shadow files, service
 * configuration) is not in the sandbox.
 */
export const ETC_READ_ONLY_PATHS = [
  '/etc/ld.so.cache',
  '/etc/localtime',
  '/etc/mime.types',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/ssl/certs',
];

/** Options for {@link buildBubblewrapArgs}. */
export interface BubblewrapArgsOptions {
  /** The host directory mounted read-write at `/work`: the program and the files it writes. */
  workDir: string;
  /** The Python interpreter; it must lie under one of the read-only paths. */
  python: string;
  limits: Pick<
    SandboxLimits,
    'cpuSeconds' | 'memoryBytes' | 'maxProcesses' | 'maxFileBytes' | 'tmpBytes'
  >;
  /** More host paths to mount read-only at the same place (a Python outside `/usr`). */
  extraReadOnlyPaths?: readonly string[];
}

/**
 * The arguments of `bwrap` for one run (docs/architecture.md §10): every namespace unshared (no
 * network: only a loopback interface of its own; new PID, IPC, UTS and cgroup namespaces; a user
 * namespace that cannot create more), a new session (no terminal injection), killed with its
 * parent, all capabilities dropped, the system and the sandbox's root read-only, a private size-limited `/tmp`, fresh
 * `/proc` and `/dev`, the work directory read-write, an empty environment, and the resource
 * limits set by {@link limitLauncher} before the program starts.
 *
 * @example
 * spawn('/usr/bin/bwrap', buildBubblewrapArgs({ workDir, python: '/usr/bin/python3', limits }));
 */
export function buildBubblewrapArgs({
  workDir,
  python,
  limits,
  extraReadOnlyPaths = [],
}: BubblewrapArgsOptions): string[] {
  const readOnly = [...SYSTEM_READ_ONLY_PATHS, ...ETC_READ_ONLY_PATHS, ...extraReadOnlyPaths];
  return [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    ...readOnly.flatMap((path) => ['--ro-bind-try', path, path]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(limits.tmpBytes),
    '--tmpfs',
    '/tmp',
    '--bind',
    workDir,
    SANDBOX_WORK_DIR,
    // The sandbox's own root (where /etc and the mount points live) is read-only too.
    '--remount-ro',
    '/',
    '--chdir',
    SANDBOX_WORK_DIR,
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/local/bin:/usr/bin:/bin',
    '--setenv',
    'HOME',
    SANDBOX_WORK_DIR,
    '--setenv',
    'TMPDIR',
    '/tmp',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'MPLBACKEND',
    'Agg',
    '--',
    python,
    '-I',
    '-c',
    limitLauncher(limits, python),
  ];
}
