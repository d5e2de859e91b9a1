/** The sandbox that runs Python: bubblewrap, resource limits, capped output, returned files. */
export {
  buildBubblewrapArgs,
  ETC_READ_ONLY_PATHS,
  matplotlibDir,
  programEnvironment,
  SANDBOX_SCRATCH_DIR,
  SANDBOX_WORK_DIR,
  SYSTEM_READ_ONLY_PATHS,
} from './bubblewrap-args';
export type { BubblewrapArgsOptions } from './bubblewrap-args';
export { collectFiles, mediaTypeOf } from './collect-files';
export type { CollectFilesOptions, SkippedFile, WrittenFile } from './collect-files';
export { createSandbox } from './create-sandbox';
export { matplotlibFontCache } from './font-cache';
export type { FontCache } from './font-cache';
export {
  DATA_DIR_VARIABLE,
  isSafeDataFileName,
  MAX_DATA_FILE_NAME_LENGTH,
  SANDBOX_DATA_DIR,
  writeDataDir,
} from './data-dir';
export type { CreateSandboxOptions } from './create-sandbox';
export type {
  CodeRun,
  DataFile,
  RunCodeOptions,
  RunMemory,
  Sandbox,
  SandboxMode,
  SandboxStatus,
} from './sandbox';
export { limitLauncher, PROGRAM_FILENAME } from './limit-launcher';
export { planMemoryBound } from './memory-bound';
export type {
  CgroupPreference,
  MemoryBound,
  MemoryEnforcement,
  MemoryPlan,
  PlanMemoryBoundOptions,
} from './memory-bound';
export {
  detectRunCgroups,
  joinCgroupArgs,
  parseCgroupMounts,
  parseProcCgroup,
  RUN_CGROUP_PREFIX,
} from './run-cgroup';
export type {
  CgroupSupport,
  CgroupVersion,
  RunCgroup,
  RunCgroupLimits,
  RunCgroupUsage,
} from './run-cgroup';
export { runBoundedProcess } from './run-bounded-process';
export type { BoundedProcessResult, RunBoundedProcessOptions } from './run-bounded-process';
export { classifyOutcome, describeOutcome, formatBytes } from './run-outcome';
export type { RunOutcome } from './run-outcome';
export { DEFAULT_SANDBOX_LIMITS } from './sandbox-limits';
export type { SandboxLimits } from './sandbox-limits';
export { SandboxUnavailableError } from './sandbox-unavailable-error';
export { createUidPool } from './uid-pool';
export type { UidPool } from './uid-pool';
