/** The bounds every sandboxed run gets (docs/architecture.md §10). */
export interface SandboxLimits {
  /** Wall-clock time before the whole sandbox is killed, in milliseconds. */
  wallClockMs: number;
  /** CPU time (RLIMIT_CPU), in seconds: SIGXCPU, then SIGKILL. */
  cpuSeconds: number;
  /** Address space of each process (RLIMIT_AS), in bytes: allocations beyond fail (MemoryError). */
  memoryBytes: number;
  /**
   * Memory of a whole run, all its processes together, in bytes: a cgroup's limit (the run is
   * killed beyond it), or without one the bound the per-process fallback keeps to.
   */
  runMemoryBytes: number;
  /** Processes and threads of the sandbox user (RLIMIT_NPROC): fork fails beyond. */
  maxProcesses: number;
  /** Largest file a process may write (RLIMIT_FSIZE), in bytes: SIGXFSZ beyond. */
  maxFileBytes: number;
  /** Bytes kept of stdout and of stderr each; more kills the run. */
  maxOutputBytes: number;
  /** Size of the private in-memory `/tmp`, in bytes. */
  tmpBytes: number;
}

/** Defaults that suit small analysis scripts and charts. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  wallClockMs: 20_000,
  cpuSeconds: 10,
  memoryBytes: 512 * 1024 * 1024,
  runMemoryBytes: 1024 * 1024 * 1024,
  maxProcesses: 32,
  maxFileBytes: 16 * 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
  tmpBytes: 64 * 1024 * 1024,
};
