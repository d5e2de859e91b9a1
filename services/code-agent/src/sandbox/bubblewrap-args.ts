import { DATA_DIR_VARIABLE, SANDBOX_DATA_DIR } from './data-dir';
import type { FontCache } from './font-cache';
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
 * the dynamic linker cache, CA certificates, fontconfig's configuration for matplotlib's fonts),
 * Debian's `alternatives` (symlinks only: numpy's `libblas.so.3` in `/usr/lib` points through
 * them) and Debian's `matplotlibrc` (matplotlib refuses to import without it). The rest of `/etc`
 * (keys, shadow files, service configuration) is not in the sandbox.
 */
export const ETC_READ_ONLY_PATHS = [
  '/etc/ld.so.cache',
  '/etc/localtime',
  '/etc/mime.types',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/ssl/certs',
  '/etc/fonts',
  '/etc/alternatives',
  '/etc/matplotlibrc',
];

/** The sandbox's private scratch space (tmpfs), where caches and configuration go. */
export const SANDBOX_SCRATCH_DIR = '/tmp';

/** matplotlib's configuration and cache directory inside a scratch directory. */
export function matplotlibDir(scratch: string): string {
  return `${scratch}/matplotlib`;
}

/**
 * The environment of every program, sandboxed or not (`scratch` is a writable directory that is
 * not returned: `/tmp` in the sandbox). matplotlib draws without a display (`Agg`) and keeps its
 * configuration and font cache in the scratch space, as fontconfig and other XDG users do, so a
 * first `import matplotlib` neither fails nor writes to the read-only system or into the work
 * directory (whose files are returned). Numerical libraries run one thread each: threads count
 * against the process limit, and BLAS thread pools would reserve memory for nothing.
 *
 * @example
 * programEnvironment({ home: '/work', scratch: '/tmp' }); // { HOME: '/work', MPLBACKEND: 'Agg', … }
 */
export function programEnvironment({
  home,
  scratch,
  dataDir,
}: {
  home: string;
  scratch: string;
  /** The data directory as the program sees it, when the run has data files. */
  dataDir?: string | undefined;
}): Record<string, string> {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    TMPDIR: scratch,
    LANG: 'C.UTF-8',
    MPLBACKEND: 'Agg',
    MPLCONFIGDIR: matplotlibDir(scratch),
    XDG_CACHE_HOME: `${scratch}/.cache`,
    XDG_CONFIG_HOME: `${scratch}/.config`,
    OPENBLAS_NUM_THREADS: '1',
    OMP_NUM_THREADS: '1',
    MKL_NUM_THREADS: '1',
    ...(dataDir === undefined ? {} : { [DATA_DIR_VARIABLE]: dataDir }),
  };
}

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
  /** The host directory with the step's own files, mounted read-only at `/data`; none: no `/data`. */
  dataDir?: string | undefined;
  /** matplotlib's font cache, bound read-only into the run's own (writable) `MPLCONFIGDIR`. */
  fontCache?: FontCache | undefined;
}

/**
 * The arguments of `bwrap` for one run (docs/architecture.md §10): every namespace unshared (no
 * network: only a loopback interface of its own; new PID, IPC, UTS and cgroup namespaces; a user
 * namespace that cannot create more), a new session (no terminal injection), killed with its
 * parent, all capabilities dropped, the system and the sandbox's root read-only, a private size-limited `/tmp`, fresh
 * `/proc` and `/dev`, the work directory read-write, the step's own files (if any) read-only at
 * `/data`, only {@link programEnvironment} in the environment, and the resource limits set by
 * {@link limitLauncher} before the program starts.
 *
 * @example
 * spawn('/usr/bin/bwrap', buildBubblewrapArgs({ workDir, python: '/usr/bin/python3', limits }));
 */
export function buildBubblewrapArgs({
  workDir,
  python,
  limits,
  extraReadOnlyPaths = [],
  dataDir,
  fontCache,
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
    SANDBOX_SCRATCH_DIR,
    ...(fontCache?.files.flatMap((name) => [
      '--ro-bind',
      `${fontCache.dir}/${name}`,
      `${matplotlibDir(SANDBOX_SCRATCH_DIR)}/${name}`,
    ]) ?? []),
    '--bind',
    workDir,
    SANDBOX_WORK_DIR,
    ...(dataDir === undefined ? [] : ['--ro-bind', dataDir, SANDBOX_DATA_DIR]),
    // The sandbox's own root (where /etc and the mount points live) is read-only too.
    '--remount-ro',
    '/',
    '--chdir',
    SANDBOX_WORK_DIR,
    '--clearenv',
    ...Object.entries(
      programEnvironment({
        home: SANDBOX_WORK_DIR,
        scratch: SANDBOX_SCRATCH_DIR,
        dataDir: dataDir === undefined ? undefined : SANDBOX_DATA_DIR,
      }),
    ).flatMap(([name, value]) => ['--setenv', name, value]),
    '--',
    python,
    '-I',
    '-c',
    limitLauncher(limits, python),
  ];
}
